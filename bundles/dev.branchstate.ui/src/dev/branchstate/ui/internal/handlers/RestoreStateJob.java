package dev.branchstate.ui.internal.handlers;

import java.io.File;

import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.osgi.util.NLS;

import dev.branchstate.core.IStateService;
import dev.branchstate.ui.BranchstateUI;
import dev.branchstate.ui.internal.Formats;
import dev.branchstate.ui.internal.GitInfo;
import dev.branchstate.ui.internal.Messages;

/**
 * Restores one stored state into its repository's projects, as a user job (progress, cancel) holding the workspace
 * root rule, as the switch protocol does. The outcome reaches
 * the user through the service's RESTORED event (the same notice as after an automatic switch); a failure returns
 * its status, which the job framework logs and shows.
 */
public final class RestoreStateJob extends Job {

	private final IStateService service;
	private final File gitDir;
	private final String commitId;

	public RestoreStateJob(IStateService service, File gitDir, String commitId) {
		super(NLS.bind(Messages.Job_restore, Formats.shortId(commitId), GitInfo.workTreeOf(gitDir).getName()));
		this.service = service;
		this.gitDir = gitDir;
		this.commitId = commitId;
		setUser(true);
		// as on the switch path: nothing builds while derived files are put back
		setRule(ResourcesPlugin.getWorkspace().getRoot());
	}

	@Override
	protected IStatus run(IProgressMonitor monitor) {
		try {
			service.restore(gitDir, commitId, monitor);
			return Status.OK_STATUS;
		} catch (OperationCanceledException e) {
			return Status.CANCEL_STATUS;
		} catch (CoreException e) {
			return e.getStatus();
		}
	}

	@Override
	public boolean belongsTo(Object family) {
		return family == BranchstateUI.JOB_FAMILY;
	}
}
