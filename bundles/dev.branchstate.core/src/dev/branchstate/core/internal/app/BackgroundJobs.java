package dev.branchstate.core.internal.app;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.jobs.IJobChangeEvent;
import org.eclipse.core.runtime.jobs.IJobChangeListener;
import org.eclipse.core.runtime.jobs.IJobManager;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.core.runtime.jobs.JobChangeAdapter;

import dev.branchstate.core.internal.switching.SaveAheadJob;
import dev.branchstate.core.internal.switching.SwitchManager;

/**
 * Waits until the background jobs of the platform are done, e.g. an index that a plugin brings up to date after a
 * refresh: a state saved while such a job runs would hold half of its data, and a switch is not over for the user
 * before its data is up to date. Generic: it knows no plugin, only the job manager. Busy means: a job running or
 * waiting to run, an auto-build, a switch job or a save ahead that completes a state saved without a part its
 * contributor could not give yet (Branchstate's own: sleeping ones included; its new archive must not be written
 * behind the command's back), or a job scheduled with a short delay
 * ({@value #SHORT_DELAY_MS} ms at most, as indexers do after a resource change) since {@link #watch()} that has not
 * run yet. Jobs sleeping for longer (periodic snapshots, say) are not waited for. Idle must hold for
 * {@value #QUIET_MS} ms; the time reported is the time until it began.
 * <p>
 * Use: {@code try (BackgroundJobs jobs = BackgroundJobs.watch()) { ...refresh...; jobs.await(out); }} — watch before
 * the operation that schedules the jobs, so that a job it schedules with a delay is seen.
 * <p>
 * A command that builds anyway ({@code build}) starts a sleeping auto-build at once ({@link #buildingAtOnce()}): the
 * platform delays it up to a second after the previous build to batch a user's edits (core.resources'
 * {@code AutoBuildJob.computeScheduleDelay}), which in a command that waits for it only adds that second, each time.
 */
public final class BackgroundJobs implements AutoCloseable {

	/** The bound of one wait. */
	public static final Duration TIMEOUT = Duration.ofMinutes(10);
	static final long SHORT_DELAY_MS = 500;
	static final long QUIET_MS = 100;
	private static final long POLL_MS = 10;

	private final IJobManager manager = Job.getJobManager();
	private boolean buildingAtOnce;
	/** Jobs scheduled with a short delay since {@link #watch()} that have not started (or ended) yet. */
	private final Set<Job> soon = ConcurrentHashMap.newKeySet();
	private final IJobChangeListener listener = new JobChangeAdapter() {
		@Override
		public void scheduled(IJobChangeEvent event) {
			if (event.getDelay() <= SHORT_DELAY_MS) {
				soon.add(event.getJob());
			} else {
				soon.remove(event.getJob());
			}
		}

		@Override
		public void running(IJobChangeEvent event) {
			soon.remove(event.getJob());
		}

		@Override
		public void done(IJobChangeEvent event) {
			soon.remove(event.getJob());
		}
	};

	private BackgroundJobs() {
		manager.addJobChangeListener(listener);
	}

	/** @return a watch on the jobs scheduled from now on; close it when done */
	public static BackgroundJobs watch() {
		return new BackgroundJobs();
	}

	/**
	 * Makes the waits wake a sleeping auto-build job at once, when nothing else is busy: the build it would run after
	 * its delay, now. (Not while other jobs run: JDT's start-up jobs must be done before a build, see {@code build}.)
	 *
	 * @return this watch
	 */
	public BackgroundJobs buildingAtOnce() {
		buildingAtOnce = true;
		return this;
	}

	/**
	 * Waits, at most {@link #TIMEOUT}, until no background job is busy; prints {@code waited N ms for background
	 * jobs: <names>} when N > 0, or which jobs were still busy when the time ran out.
	 *
	 * @return the milliseconds waited until the jobs were done (the time out when they were not)
	 */
	public long await(PrintStream out) throws InterruptedException {
		return await(out, TIMEOUT);
	}

	/** {@link #await(PrintStream)} with another bound. */
	public long await(PrintStream out, Duration timeout) throws InterruptedException {
		long start = System.nanoTime();
		long deadline = start + timeout.toNanos();
		long idleSince = -1;
		Set<String> seen = new LinkedHashSet<>();
		while (true) {
			long now = System.nanoTime();
			List<Job> busyJobs = busyJobs();
			if (buildingAtOnce && !busyJobs.isEmpty()
					&& busyJobs.stream().allMatch(BackgroundJobs::isSleepingAutoBuild)) {
				busyJobs.forEach(Job::wakeUp); // (nothing else to wait for: the build it would run after its delay, now)
			}
			List<String> busy = names(busyJobs);
			// a job's name without its state, and without the counts some put in it ("Java indexing... 326 files")
			busy.forEach(name -> seen.add(name.substring(0, name.lastIndexOf(" (")).replaceAll("\\d+", "N"))); //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
			if (busy.isEmpty()) {
				if (idleSince < 0) {
					idleSince = now;
				}
				if (now - idleSince >= QUIET_MS * 1_000_000) {
					long waited = (idleSince - start) / 1_000_000;
					if (waited > 0) {
						out.println("waited " + waited + " ms for background jobs: " + String.join(", ", seen)); //$NON-NLS-1$ //$NON-NLS-2$
					}
					return waited;
				}
			} else {
				idleSince = -1;
				if (now >= deadline) {
					out.println("background jobs still busy after " + (now - start) / 1_000_000 + " ms, going on: " //$NON-NLS-1$ //$NON-NLS-2$
							+ String.join(", ", busy())); //$NON-NLS-1$
					return (now - start) / 1_000_000;
				}
			}
			Thread.sleep(POLL_MS);
		}
	}

	private static boolean isSleepingAutoBuild(Job job) {
		return job.getState() == Job.SLEEPING && job.belongsTo(ResourcesPlugin.FAMILY_AUTO_BUILD);
	}

	/** @return the names of the busy jobs, with their states; empty when idle */
	private List<String> busy() {
		return names(busyJobs());
	}

	private static List<String> names(List<Job> jobs) {
		return jobs.stream().map(job -> job.getName() + " (" + stateName(job.getState()) + ")").toList(); //$NON-NLS-1$ //$NON-NLS-2$
	}

	/** @return the busy jobs; empty when idle */
	private List<Job> busyJobs() {
		List<Job> busy = new ArrayList<>();
		Job self = manager.currentJob();
		for (Job job : manager.find(null)) {
			if (job == self) {
				continue;
			}
			int state = job.getState();
			boolean counts = state == Job.RUNNING || state == Job.WAITING || soon.contains(job)
					|| job.belongsTo(ResourcesPlugin.FAMILY_AUTO_BUILD) || job.belongsTo(SwitchManager.FAMILY)
					|| job.belongsTo(SaveAheadJob.COMPLETING);
			if (counts && state != Job.NONE) {
				busy.add(job);
			}
		}
		return busy;
	}

	private static String stateName(int state) {
		return switch (state) {
		case Job.RUNNING -> "running"; //$NON-NLS-1$
		case Job.WAITING -> "waiting"; //$NON-NLS-1$
		case Job.SLEEPING -> "sleeping"; //$NON-NLS-1$
		default -> "none"; //$NON-NLS-1$
		};
	}

	@Override
	public void close() {
		manager.removeJobChangeListener(listener);
	}
}
