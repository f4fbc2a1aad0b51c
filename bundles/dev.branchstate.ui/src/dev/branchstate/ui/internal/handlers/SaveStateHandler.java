package dev.branchstate.ui.internal.handlers;

import java.io.File;
import java.util.Optional;

import org.eclipse.core.commands.AbstractHandler;
import org.eclipse.core.commands.ExecutionEvent;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.jface.dialogs.ErrorDialog;
import org.eclipse.jface.dialogs.MessageDialog;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.ui.handlers.HandlerUtil;

import dev.branchstate.core.IStateService;
import dev.branchstate.ui.internal.Messages;
import dev.branchstate.ui.internal.StateServices;

/** "Save State": saves the state of the selected project's repository in a job. */
public final class SaveStateHandler extends AbstractHandler {

	@Override
	public Object execute(ExecutionEvent event) {
		Shell shell = HandlerUtil.getActiveShell(event);
		Optional<IProject> project = Selections.project(event);
		if (project.isEmpty()) {
			MessageDialog.openInformation(shell, Messages.Command_saveTitle, Messages.Command_noProject);
			return null;
		}
		IStateService service;
		try {
			service = StateServices.require();
		} catch (CoreException e) {
			ErrorDialog.openError(shell, Messages.Command_saveTitle, null, e.getStatus());
			return null;
		}
		Optional<File> gitDir = service.repositoryOf(project.get());
		if (gitDir.isEmpty()) {
			MessageDialog.openInformation(shell, Messages.Command_saveTitle,
					NLS.bind(Messages.Command_notInRepository, project.get().getName()));
			return null;
		}
		new SaveStateJob(service, gitDir.get()).schedule();
		return null;
	}
}
