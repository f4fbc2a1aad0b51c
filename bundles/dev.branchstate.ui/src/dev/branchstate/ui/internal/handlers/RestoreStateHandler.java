package dev.branchstate.ui.internal.handlers;

import java.io.File;
import java.util.List;
import java.util.Optional;

import org.eclipse.core.commands.AbstractHandler;
import org.eclipse.core.commands.ExecutionEvent;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.jface.dialogs.ErrorDialog;
import org.eclipse.jface.dialogs.MessageDialog;
import org.eclipse.jface.window.Window;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.ui.handlers.HandlerUtil;

import dev.branchstate.core.IStateService;
import dev.branchstate.core.StateInfo;
import dev.branchstate.ui.internal.GitInfo;
import dev.branchstate.ui.internal.Messages;
import dev.branchstate.ui.internal.StateServices;

/**
 * "Restore State…": asks which stored state of the selected project's repository to restore (the one of HEAD
 * preselected), then restores it in a job.
 */
public final class RestoreStateHandler extends AbstractHandler {

	@Override
	public Object execute(ExecutionEvent event) {
		Shell shell = HandlerUtil.getActiveShell(event);
		Optional<IProject> project = Selections.project(event);
		if (project.isEmpty()) {
			MessageDialog.openInformation(shell, Messages.Command_restoreTitle, Messages.Command_noProject);
			return null;
		}
		IStateService service;
		try {
			service = StateServices.require();
		} catch (CoreException e) {
			ErrorDialog.openError(shell, Messages.Command_restoreTitle, null, e.getStatus());
			return null;
		}
		Optional<File> gitDir = service.repositoryOf(project.get());
		if (gitDir.isEmpty()) {
			MessageDialog.openInformation(shell, Messages.Command_restoreTitle,
					NLS.bind(Messages.Command_notInRepository, project.get().getName()));
			return null;
		}
		List<StateInfo> states = service.states(gitDir.get());
		String repositoryName = GitInfo.workTreeOf(gitDir.get()).getName();
		if (states.isEmpty()) {
			MessageDialog.openInformation(shell, Messages.Command_restoreTitle,
					NLS.bind(Messages.Command_noStates, repositoryName));
			return null;
		}
		StateSelectionDialog dialog = new StateSelectionDialog(shell, gitDir.get(), repositoryName, states);
		if (dialog.open() == Window.OK && dialog.selected() != null) {
			new RestoreStateJob(service, gitDir.get(), dialog.selected().commitId()).schedule();
		}
		return null;
	}
}
