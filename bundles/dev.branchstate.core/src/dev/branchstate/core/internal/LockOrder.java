package dev.branchstate.core.internal;

import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.jobs.IJobManager;
import org.eclipse.core.runtime.jobs.ISchedulingRule;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.core.runtime.jobs.MultiRule;

/**
 * The order in which Branchstate's threads take what they wait for, so that no two of them wait for each other:
 * <ol>
 * <li>the workspace: a scheduling rule, or the lock that core.resources holds while an operation's listeners run
 * (PRE_REFRESH, PRE_BUILD, POST_BUILD);</li>
 * <li>a repository's lock (the switch protocol's);</li>
 * <li>a repository's save and restore lock (the state service's).</li>
 * </ol>
 * Listeners of workspace operations take the second and the third while core.resources holds the first. So a thread
 * that holds the second or the third must never begin to wait for the workspace: it holds the workspace's rule before
 * it takes them ({@link #inWorkspaceRule}, and the rule of the switch and save-ahead jobs). Checking a project's build
 * ({@code BuildManagerAccess.whyNotBuilt}) waits for the workspace's lock, for one.
 */
public final class LockOrder {

	/** Work that may throw a {@link CoreException}. */
	@FunctionalInterface
	public interface Work<T> {
		T run() throws CoreException;
	}

	private LockOrder() {
	}

	/** @return a rule that contains every resource and the build rule: held, no workspace operation or build runs */
	public static ISchedulingRule workspaceRule(IWorkspace workspace) {
		return MultiRule.combine(workspace.getRoot(), workspace.getRuleFactory().buildRule());
	}

	/**
	 * Does the work holding the workspace's rule, taken first, when this thread holds no rule yet; a thread that holds
	 * one (a job's, a workspace operation's, a listener's) is ordered by it already and does the work at once.
	 *
	 * @param monitor cancels the wait for the rule ({@link org.eclipse.core.runtime.OperationCanceledException})
	 */
	public static <T> T inWorkspaceRule(IWorkspace workspace, IProgressMonitor monitor, Work<T> work)
			throws CoreException {
		IJobManager jobs = Job.getJobManager();
		if (jobs.currentRule() != null || workspace.isTreeLocked()) {
			return work.run();
		}
		ISchedulingRule rule = workspaceRule(workspace);
		try {
			jobs.beginRule(rule, monitor); // inside the try: a rule begun must be ended, even when beginning threw
			return work.run();
		} finally {
			jobs.endRule(rule);
		}
	}
}
