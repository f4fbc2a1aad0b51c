package dev.branchstate.core.internal.app;

import java.io.File;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.eclipse.core.runtime.jobs.IJobChangeEvent;
import org.eclipse.core.runtime.jobs.IJobChangeListener;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.core.runtime.jobs.JobChangeAdapter;
import org.eclipse.equinox.app.IApplication;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.util.tracker.ServiceTracker;

import dev.branchstate.core.internal.app.Commands.NotFoundException;
import dev.branchstate.core.internal.switching.SwitchManager;

/**
 * The headless command {@code await-switch <repoPath>}: in a running session ({@link CommandServer}), waits until the
 * repository's HEAD as it is now has been handled by the session's own detection (a checkout in a terminal noticed by
 * the HEAD watch), without asking for a check itself as {@code build} does: it waits for the switch jobs' ends, not
 * for a time. Prints {@code switch handled}; exit code 1 when none was within {@value #BOUND_MINUTES} minutes (the
 * move was not noticed), 3 when the repository holds no project of the workspace.
 */
final class AwaitSwitchCommand {

	private static final long BOUND_MINUTES = 5;

	private AwaitSwitchCommand() {
	}

	static Object run(List<String> args, PrintStream out, PrintStream err) throws InterruptedException {
		if (args.size() != 1) {
			return BranchstateApplication.usage("await-switch takes a repository path"); //$NON-NLS-1$
		}
		File gitDir;
		try {
			gitDir = Commands.gitDir(args.get(0));
		} catch (NotFoundException e) {
			err.println("branchstate: " + e.getMessage()); //$NON-NLS-1$
			return BranchstateApplication.EXIT_NOT_FOUND;
		}
		BundleContext context = FrameworkUtil.getBundle(AwaitSwitchCommand.class).getBundleContext();
		ServiceTracker<SwitchManager, SwitchManager> tracker = new ServiceTracker<>(context, SwitchManager.class, null);
		Semaphore switchJobsEnded = new Semaphore(0);
		IJobChangeListener listener = new JobChangeAdapter() {
			@Override
			public void done(IJobChangeEvent event) {
				if (event.getJob().belongsTo(SwitchManager.FAMILY)) {
					switchJobsEnded.release();
				}
			}
		};
		tracker.open();
		Job.getJobManager().addJobChangeListener(listener);
		try {
			SwitchManager manager = tracker.waitForService(Duration.ofSeconds(30).toMillis());
			if (manager == null) {
				err.println("branchstate: the switch manager is not running"); //$NON-NLS-1$
				return BranchstateApplication.EXIT_PROBLEM;
			}
			long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(BOUND_MINUTES);
			// right after the IDE's start (or an import) the manager may not track the repository yet
			manager.awaitTracking(Duration.ofMinutes(BOUND_MINUTES));
			while (true) {
				Optional<Boolean> handled = manager.headHandled(gitDir);
				if (handled.isEmpty()) {
					err.println("branchstate: no workspace project belongs to " + gitDir); //$NON-NLS-1$
					return BranchstateApplication.EXIT_NOT_FOUND;
				}
				if (handled.get().booleanValue()) {
					out.println("switch handled"); //$NON-NLS-1$
					return IApplication.EXIT_OK;
				}
				long left = deadline - System.nanoTime();
				if (left <= 0 || !switchJobsEnded.tryAcquire(left, TimeUnit.NANOSECONDS)) {
					err.println("branchstate: the move of HEAD was not handled within " + BOUND_MINUTES + " minutes"); //$NON-NLS-1$ //$NON-NLS-2$
					return BranchstateApplication.EXIT_PROBLEM;
				}
			}
		} finally {
			Job.getJobManager().removeJobChangeListener(listener);
			tracker.close();
		}
	}
}
