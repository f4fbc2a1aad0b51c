package dev.branchstate.ui.internal.handlers;

import java.io.File;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.osgi.util.NLS;

import dev.branchstate.core.IStateService;
import dev.branchstate.core.StateInfo;
import dev.branchstate.ui.BranchstateUI;
import dev.branchstate.ui.internal.Formats;
import dev.branchstate.ui.internal.GitInfo;
import dev.branchstate.ui.internal.Messages;
import dev.branchstate.ui.internal.Notices;

/**
 * Saves the state of one repository, as a user job (progress in the Progress view, cancellable). It brings the
 * build of the repository's projects up to date first, as the service saves only a complete build. On success the
 * user gets a small notice; when nothing could be saved, a notice says why; a failure returns its status, which the
 * job framework logs and shows.
 */
public final class SaveStateJob extends Job {

	private final IStateService service;
	private final File gitDir;

	public SaveStateJob(IStateService service, File gitDir) {
		super(NLS.bind(Messages.Job_save, GitInfo.workTreeOf(gitDir).getName()));
		this.service = service;
		this.gitDir = gitDir;
		setUser(true);
	}

	@Override
	protected IStatus run(IProgressMonitor monitor) {
		try {
			SubMonitor progress = SubMonitor.convert(monitor, 2);
			service.awaitBuild(gitDir, progress.split(1));
			StateInfo state = service.save(gitDir, progress.split(1));
			String name = state.branches().isEmpty() ? Formats.shortId(state.commitId())
					: String.join(", ", state.branches()); //$NON-NLS-1$
			Notices.popup(Messages.Notice_savedTitle, NLS.bind(Messages.Notice_savedManually, new Object[] { name,
					Formats.shortId(state.commitId()), Formats.size(state.size()),
					Formats.ratio(state.uncompressedSize(), state.size()) }), false);
			return Status.OK_STATUS;
		} catch (OperationCanceledException e) {
			return Status.CANCEL_STATUS;
		} catch (CoreException e) {
			if (e.getStatus().getSeverity() == IStatus.INFO) {
				// nothing saved, for a reason the user must hear of: they asked for it (e.g. the build did not finish)
				Notices.popup(Messages.Notice_notSavedTitle, e.getStatus().getMessage(), true);
				return Status.OK_STATUS;
			}
			return e.getStatus();
		}
	}

	@Override
	public boolean belongsTo(Object family) {
		return family == BranchstateUI.JOB_FAMILY;
	}
}
