package dev.branchstate.core.internal.switching;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.Platform;
import org.eclipse.core.runtime.ProgressMonitorWrapper;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.IJobManager;
import org.eclipse.core.runtime.jobs.ISchedulingRule;
import org.eclipse.core.runtime.jobs.Job;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.core.internal.LockOrder;
import dev.branchstate.core.internal.Messages;

/**
 * Saves, in the background, the state of the derived data on disk before a switch needs it, so that leaving a branch
 * usually saves nothing:
 * <ul>
 * <li><b>ahead</b>: once a build left the complete build of the commit checked out on disk (or a commit carried the
 * derived data to a new commit) and the IDE has been quiet for {@link #quietMs()}, at most once per
 * {@link #intervalMs()} per repository (so that a user who edits and builds all day pays one differential save a
 * minute at most), when the {@link BranchstatePreferences#SAVE_AHEAD} preference and automatic switching are on;</li>
 * <li><b>complete</b>: a stored state that lacks parts a contributor could not give when it was saved — JDT's search
 * index while JDT's indexer still had work, at a session's start — is saved again once it is on disk (saved at HEAD,
 * or restored) and the IDE is quiet, so that its next restore leaves the IDE nothing to redo. Such a state is known
 * from its SAVED event (an INFO status).</li>
 * </ul>
 * The job has the lowest priority and yields to any other job by coming back later ({@value #ATTEMPTS} times at
 * most, with growing delays). Any build cancels it ({@link #userWork()}): a save cut short writes nothing and the
 * switch saves as without it. It holds the workspace's rule and then the repository's lock while it saves, as a
 * switch does ({@link LockOrder}: a listener of a refresh or a build waits for that lock while core.resources holds
 * the workspace, so a save that held the lock first and then waited for the workspace would wait for ever). A switch
 * that begins meanwhile waits for it, and then finds the state of the branch it leaves already stored; any other
 * workspace operation that waits for its rule (a user's edit, a refresh, a build) makes it give way: the save stops,
 * writes nothing, and comes back later. The rule for what may be
 * saved is the switch's own ({@link DiskState#toSave}). Not in the headless application, which saves explicitly.
 */
public final class SaveAheadJob extends Job {

	/** Job family of the save-ahead jobs: join it to wait until the states on disk are saved and complete. */
	public static final Object FAMILY = SaveAheadJob.class.getName();
	/**
	 * Job family of a save-ahead job that has a state to complete (saved without a part its contributor could not give
	 * yet): that save is owed now, not ahead of a later switch, and the headless commands wait for it.
	 */
	public static final Object COMPLETING = FAMILY + ".completing"; //$NON-NLS-1$

	/** System property: the quiet time (ms) after a build before the state is saved ahead. */
	static final String QUIET_MS = "dev.branchstate.saveAhead.quietMs"; //$NON-NLS-1$
	/** System property: the least time (ms) between two saves ahead of one repository. */
	static final String INTERVAL_MS = "dev.branchstate.saveAhead.intervalMs"; //$NON-NLS-1$

	static final int ATTEMPTS = 6;
	private static final long FIRST_DELAY_MS = 500;

	private final TrackedRepository repository;
	private final SwitchProtocol protocol;
	private final boolean enabled;
	/** Commits whose stored state lacks parts (told by SAVED events of this session). */
	private final Set<String> partial = ConcurrentHashMap.newKeySet();
	private volatile int attempts;
	/** When the last save ahead ended ({@link System#nanoTime()}), or 0. */
	private volatile long lastSaveNanos;

	SaveAheadJob(TrackedRepository repository, SwitchProtocol protocol, ISchedulingRule workspaceRule,
			boolean enabled) {
		super(Messages.bind(Messages.Switch_saveAheadJobName, repository.displayName()));
		this.repository = repository;
		this.protocol = protocol;
		this.enabled = enabled;
		setSystem(true);
		setPriority(Job.DECORATE);
		setRule(workspaceRule);
	}

	static long quietMs() {
		return Long.getLong(QUIET_MS, 3_000L).longValue();
	}

	static long intervalMs() {
		return Long.getLong(INTERVAL_MS, 60_000L).longValue();
	}

	@Override
	public boolean belongsTo(Object family) {
		return family == FAMILY || family == repository || family == COMPLETING && !partial.isEmpty();
	}

	/** A build changed the derived data, or a commit carried it: saved ahead once the IDE is quiet. */
	void changed() {
		if (!enabled) {
			return;
		}
		attempts = 0;
		long sinceLast = (System.nanoTime() - lastSaveNanos) / 1_000_000;
		long delay = lastSaveNanos == 0 ? quietMs() : Math.max(quietMs(), intervalMs() - sinceLast);
		cancel(); // a sleeping one starts its quiet time again
		schedule(delay);
	}

	/** A build begins: a save ahead in progress stops (the build comes first), and waits for the build's end. */
	void userWork() {
		if (getState() == Job.RUNNING) {
			cancel();
		}
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

	/** A state of the commit was restored: when it is partial, it is completed once the IDE is quiet. */
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
		if (othersBusy() || !repository.lock.tryLock()) {
			again();
			return Status.OK_STATUS;
		}
		try {
			DiskState disk = repository.disk;
			Head handled = disk.handled();
			if (repository.closed || handled == null || !handled.equals(disk.derived())
					|| !handled.equals(Head.read(repository.git))) {
				return Status.OK_STATUS; // unknown data, or a switch pending: the switch decides
			}
			boolean incomplete = partial.contains(handled.commitId()) && disk.isStoredStateOf(handled.commitId());
			if (!incomplete && (disk.stored() || !enabled || !SwitchProtocol.autoSwitch(repository.projects)
					|| !Platform.getPreferencesService().getBoolean(BranchstatePreferences.NODE,
							BranchstatePreferences.SAVE_AHEAD, true, null))) {
				return Status.OK_STATUS;
			}
			if (!incomplete && !(protocol.decideSave(repository, repository.projects) instanceof DiskState.Save)) {
				return Status.OK_STATUS; // a branch not kept, a detached HEAD: the switch says why, if it matters
			}
			GivingWay giving = new GivingWay(monitor);
			try {
				protocol.save(repository, handled, giving); // its SAVED event tells whether it is whole
			} finally {
				if (giving.gaveWay) {
					again(); // the save stopped for a workspace operation: told as canceled, and tried again later
				}
			}
			if (!incomplete && !giving.gaveWay) {
				lastSaveNanos = System.nanoTime();
			}
			return Status.OK_STATUS;
		} catch (CoreException e) {
			return Status.OK_STATUS; // told in the service's FAILED event, and logged there; the old state stays
		} catch (IOException e) {
			return Status.OK_STATUS; // HEAD unreadable: the switch job says so
		} catch (OperationCanceledException e) {
			return Status.CANCEL_STATUS; // a build began (it schedules the next save ahead), or the IDE shuts down
		} finally {
			repository.lock.unlock();
		}
	}

	/**
	 * The save's monitor: canceled with the job, and as soon as a workspace operation waits for the rule this job
	 * holds (a thread or a job: {@link Job#isBlocking()} counts only jobs of a higher priority that the user sees).
	 * Asked once per entry written; looks at the job manager at most every {@value #LOOK_EVERY_NS} ns.
	 */
	private final class GivingWay extends ProgressMonitorWrapper {

		private static final long LOOK_EVERY_NS = 20_000_000;
		private long lookedAt = System.nanoTime() - LOOK_EVERY_NS;
		volatile boolean gaveWay;

		GivingWay(IProgressMonitor monitor) {
			super(monitor);
		}

		@Override
		public boolean isCanceled() {
			if (super.isCanceled() || gaveWay) {
				return true;
			}
			long now = System.nanoTime();
			if (now - lookedAt >= LOOK_EVERY_NS) {
				lookedAt = now;
				gaveWay = isBlocking() || anotherWaitsForTheRule();
			}
			return gaveWay;
		}
	}

	/** @return whether another job is ready to run but for a rule that conflicts with this job's */
	private boolean anotherWaitsForTheRule() {
		ISchedulingRule rule = getRule();
		for (Job job : Job.getJobManager().find(null)) {
			if (job != this && job.getState() == Job.WAITING && job.getRule() != null
					&& job.getRule().isConflicting(rule)) {
				return true;
			}
		}
		return false;
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
