package dev.branchstate.core;

import java.io.File;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;

/**
 * The Branchstate state service (an OSGi service). A repository is named by its Git directory (the
 * {@code .git} folder, or the worktree's git dir for a linked worktree).
 * <p>
 * Long operations report progress to the monitor and are cancellable: cancel surfaces as
 * {@link org.eclipse.core.runtime.OperationCanceledException} and leaves nothing half-done.
 * <p>
 * Every save and restore ends with exactly one {@link StateEvent}. A failure is told once: a FAILED event, and a
 * {@link CoreException} with an ERROR status thrown to the caller, which logs it if it handles it (a Job returns
 * the status, and the job framework logs it); the service itself does not write it to the Error Log.
 * When there is nothing to do (no open project in the repository, no state stored for the commit) the event is
 * SKIPPED and the exception's status is INFO. A contributor that fails is skipped (its failure is logged by
 * {@code SafeRunner}); the others go on and the event's status is a WARNING naming it.
 */
public interface IStateService {

	/** @return the Git directory of the repository that holds the project, if it is in one */
	Optional<File> repositoryOf(IProject project);

	/**
	 * Saves the state of the repository's projects for the commit HEAD is at now (and the current branch, if any).
	 * Replaces an older state of the same branch unless another branch still uses it.
	 * <p>
	 * A state holds only a complete build: when a builder of a project has not built the current tree (a build is
	 * pending, running, or was interrupted), nothing is saved, the event is SKIPPED and the status INFO says why.
	 * Call {@link #awaitBuild} first to save what the user asked for.
	 * <p>
	 * Called in a thread that holds no scheduling rule, it holds the workspace's rule (the root and the build rule)
	 * while it saves: no workspace operation changes what it reads meanwhile. A caller that holds a rule holds one
	 * that contains the workspace root.
	 */
	StateInfo save(File gitDir, IProgressMonitor monitor) throws CoreException;

	/**
	 * Brings the build of the repository's projects up to date, as the user expects before Save State: waits for the
	 * auto-build (run now; started for projects never built since Eclipse started), or with automatic building off
	 * runs an incremental build of them. Runs in the
	 * calling thread, which must hold no scheduling rule; cancellable through the monitor.
	 */
	void awaitBuild(File gitDir, IProgressMonitor monitor) throws CoreException;

	/**
	 * Saves the state of the repository's projects as the state of {@code commitId} reached through
	 * {@code branch}. The switch protocol calls this after HEAD has already moved away from that commit, while the
	 * derived data on disk still reflects it (no build has run since); the dirty paths recorded are those of the
	 * working tree now (the local changes a checkout carried over). Must run in the calling thread and only read
	 * the workspace (it may be called from a PRE_BUILD listener or a save participant). Saves nothing (SKIPPED, INFO)
	 * unless every builder of the projects has built the workspace's current tree. Holds the workspace's rule as
	 * {@link #save(File, IProgressMonitor)} does.
	 *
	 * @param branch the short name of the branch HEAD was on, or {@code null} for a detached HEAD
	 */
	StateInfo save(File gitDir, String commitId, String branch, IProgressMonitor monitor) throws CoreException;

	/**
	 * Restores the stored state for {@code commitId} into the repository's projects, then hands the paths that
	 * differ between that state and the working tree to contributors and builders. Restores nothing (SKIPPED, INFO)
	 * when the state has a file that the working tree lacks and a builder of its project never saw (it would not
	 * drop what the state holds built from it). Derived data of a project that could not be restored completely is
	 * removed and its builders build it in full.
	 * <p>
	 * Runs in the calling thread: the switch protocol calls it from a Job that holds the workspace root rule or
	 * from a PRE_BUILD listener, so nested workspace operations are fine, but scheduling and joining another Job
	 * that needs a resource rule would deadlock. Called in a thread that holds no scheduling rule, it holds the
	 * workspace's rule while it restores, as {@link #save(File, IProgressMonitor)} does.
	 */
	RestoreResult restore(File gitDir, String commitId, IProgressMonitor monitor) throws CoreException;

	/** @return the stored states of the repository, newest first */
	List<StateInfo> states(File gitDir);

	/** @return every stored state, newest first */
	List<StateInfo> allStates();

	/**
	 * @return what the stored states take on disk: a state that shares another one's entries links its files, which
	 *         count once (so this is less than the sum of the states' sizes)
	 */
	default long diskUsage() {
		return allStates().stream().mapToLong(StateInfo::size).sum();
	}

	/**
	 * Asks the remote state store which commits of the repository it has a state of that this IDE could use (same
	 * repository identity and compatibility key). Bounded by the store's request timeout; runs in the calling thread.
	 *
	 * @return the commit ids; empty when no remote store is configured
	 * @throws CoreException when the store cannot be asked (its message names the store and the reason)
	 */
	default Set<String> remoteStates(File gitDir, IProgressMonitor monitor) throws CoreException {
		return Set.of();
	}

	/**
	 * Tests a remote state store: one listing of Branchstate's objects under the prefix and the signature check of the
	 * newest manifest against the pinned public key. Bounded by the request timeout; runs in the calling thread (call
	 * it from a job). Does not count towards giving the configured store up.
	 *
	 * @return what the store answered
	 * @throws CoreException when a setting is not valid or the store could not be listed (the message names the
	 *                       endpoint and bucket and gives the store's answer)
	 */
	default RemoteStoreCheck checkRemoteStore(RemoteStoreSettings settings, IProgressMonitor monitor)
			throws CoreException {
		throw new CoreException(org.eclipse.core.runtime.Status.error("remote stores are not supported here")); //$NON-NLS-1$
	}

	/** Deletes a stored state and its archive. */
	void delete(StateInfo state) throws CoreException;

	void addStateListener(IStateListener listener);

	void removeStateListener(IStateListener listener);

	/**
	 * Tells the listeners of an event that happened outside this service: the switch protocol reports through
	 * this the switches it skipped (with the reason) and the failures the service did not report itself.
	 */
	void fireEvent(StateEvent event);
}
