package dev.branchstate.core.internal.switching;

import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import dev.branchstate.core.internal.Messages;

/**
 * Handles the pending switch of one repository. Its scheduling rule (see {@link SwitchManager#switchRule()})
 * contains the workspace root and the build rule, so no build starts while it runs, and it may modify any resource.
 * Scheduling it while it runs makes it run once more afterwards, which coalesces bursts of ref events.
 */
final class SwitchJob extends Job {

	private final TrackedRepository repository;
	private final SwitchManager manager;

	SwitchJob(TrackedRepository repository, SwitchManager manager) {
		super(Messages.bind(Messages.Switch_jobName, repository.displayName(), "HEAD")); //$NON-NLS-1$
		this.repository = repository;
		this.manager = manager;
		setRule(manager.switchRule());
		setPriority(Job.SHORT);
	}

	@Override
	public boolean belongsTo(Object family) {
		return family == SwitchManager.FAMILY || family == repository;
	}

	@Override
	protected IStatus run(IProgressMonitor monitor) {
		try {
			manager.check(repository, monitor);
			return Status.OK_STATUS;
		} catch (OperationCanceledException e) {
			return Status.CANCEL_STATUS;
		}
	}
}
