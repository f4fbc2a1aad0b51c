package dev.branchstate.core.internal.switching;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.IJobManager;
import org.eclipse.core.runtime.jobs.Job;

import dev.branchstate.core.internal.Messages;

/**
 * Completes the state of the commit whose derived data is on disk when that state lacks parts a contributor could not
 * give when it was saved — JDT's search index while JDT's indexer still had work, at a session's start — so that the
 * next restore of the commit leaves nothing for the IDE to redo.
 * <p>
 * A state is known to be partial from its SAVED event (an INFO status: some contributors left their part out). The
 * job runs when such a state is on disk (just saved at HEAD, or restored), once no other job is running or waiting,
 * and saves the derived data again as the state of that commit (the archive copies the entries that did not change).
 * It gives up when the derived data is no longer that state (a build, a switch), and yields to any other job by
 * coming back later ({@value #ATTEMPTS} times at most, with growing delays). It holds the repository's lock while it
 * saves, as a switch does: a build or a switch that begins meanwhile waits for it in the PRE_BUILD check or the
 * switch job.
 */
public final class CompletionJob extends Job {

	/** Job family of the completion jobs: join it to wait until the states on disk are complete. */
	public static final Object FAMILY = CompletionJob.class.getName();

	static final int ATTEMPTS = 6;
	private static final long FIRST_DELAY_MS = 500;

	private final TrackedRepository repository;
	private final SwitchProtocol protocol;
	/** Commits whose stored state lacks parts (told by SAVED events of this session). */
	private final Set<String> partial = ConcurrentHashMap.newKeySet();
	private volatile int attempts;

	CompletionJob(TrackedRepository repository, SwitchProtocol protocol) {
		super(Messages.bind(Messages.Switch_completionJobName, repository.displayName()));
		this.repository = repository;
		this.protocol = protocol;
		setSystem(true);
		setPriority(Job.DECORATE);
	}

	@Override
	public boolean belongsTo(Object family) {
		return family == FAMILY || family == repository;
	}

	/** A state of the commit was saved; {@code whole}: with every contributor's part. */
	void saved(String commitId, boolean whole) {
		if (whole) {
			partial.remove(commitId);
		} else if (partial.add(commitId)) {
			attempts = 0;
			schedule(FIRST_DELAY_MS);
		} else {
			again();
		}
	}

	/** A state of the commit was restored: when it is partial, it is completed once the IDE is idle. */
	void restored(String commitId) {
		if (partial.contains(commitId)) {
			attempts = 0;
			schedule(FIRST_DELAY_MS);
		}
	}

	/** Comes back later, with a longer delay, unless it tried often enough. */
	private void again() {
		int attempt = attempts++;
		if (attempt < ATTEMPTS) {
			schedule(FIRST_DELAY_MS << attempt);
		}
	}

	@Override
	protected IStatus run(IProgressMonitor monitor) {
		if (partial.isEmpty()) {
			return Status.OK_STATUS;
		}
		if (othersBusy() || !repository.lock.tryLock()) {
			again();
			return Status.OK_STATUS;
		}
		try {
			DiskState disk = repository.disk;
			Head handled = disk.handled();
			if (repository.closed || handled == null || !partial.contains(handled.commitId())
					|| !disk.isStoredStateOf(handled.commitId()) || !handled.equals(Head.read(repository.git))) {
				return Status.OK_STATUS; // the data on disk is no partial state (any more): the next switch saves it
			}
			protocol.save(repository, handled, monitor); // its SAVED event tells whether it is whole now
			return Status.OK_STATUS;
		} catch (CoreException e) {
			return Status.OK_STATUS; // told in the service's FAILED event, and logged there; the old state stays
		} catch (IOException e) {
			return Status.OK_STATUS; // HEAD unreadable: the switch job says so
		} catch (OperationCanceledException e) {
			return Status.CANCEL_STATUS; // the workbench shuts down: completed at the next restore
		} finally {
			repository.lock.unlock();
		}
	}

	/** @return whether another job is running or waiting to run (user work, a build, an indexer's progress) */
	private boolean othersBusy() {
		IJobManager manager = Job.getJobManager();
		for (Job job : manager.find(null)) {
			if (job != this && (job.getState() == Job.RUNNING || job.getState() == Job.WAITING)) {
				return true;
			}
		}
		return false;
	}
}
