package dev.branchstate.core.internal.switching;

import java.util.List;

import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.IJobChangeEvent;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.core.runtime.jobs.JobChangeAdapter;
import dev.branchstate.core.internal.Messages;

/**
 * Handles the pending switch of one repository. Its scheduling rule (see {@link SwitchManager#switchRule()})
 * contains the workspace root and the build rule, so no build starts while it runs, and it may modify any resource.
 * Scheduling it while it runs makes it run once more afterwards, which coalesces bursts of ref events.
 */
final class SwitchJob extends Job {

	/** The longest wait for the contributors' jobs that must run before a switch. */
	static final long MAX_WAIT_MS = 5_000;

	private final TrackedRepository repository;
	private final SwitchManager manager;
	/** This run follows a wait for the contributors' jobs: it does not wait again. */
	private volatile boolean waited;

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
			if (!waited && waitForJobsBeforeSwitch()) {
				return Status.OK_STATUS;
			}
			waited = false;
			manager.check(repository, monitor);
			return Status.OK_STATUS;
		} catch (OperationCanceledException e) {
			return Status.CANCEL_STATUS;
		}
	}

	/**
	 * When a switch is pending and the contributors' models have jobs to run first (JDT's processing of the changes
	 * made while it was not running, scheduled when it starts), comes back once they are done — sleeping meanwhile,
	 * so that whoever waits for the switch's family still waits — or after {@value #MAX_WAIT_MS} ms at the latest.
	 * Waits once per run of the protocol.
	 *
	 * @return whether it will come back
	 */
	private boolean waitForJobsBeforeSwitch() {
		List<Job> first = manager.jobsBeforeSwitch(repository);
		if (first.isEmpty()) {
			return false;
		}
		waited = true;
		schedule(MAX_WAIT_MS); // runs once more after this run: sleeping until woken
		JobChangeAdapter wake = new JobChangeAdapter() {
			@Override
			public void done(IJobChangeEvent event) {
				event.getJob().removeJobChangeListener(this);
				if (first.stream().allMatch(job -> job.getState() == Job.NONE)) {
					wakeUp();
				}
			}
		};
		first.forEach(job -> job.addJobChangeListener(wake));
		if (first.stream().allMatch(job -> job.getState() == Job.NONE)) {
			wakeUp(); // they were done before the listener was added
		}
		return true;
	}
}
