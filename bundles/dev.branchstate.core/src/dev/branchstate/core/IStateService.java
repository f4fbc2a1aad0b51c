package dev.branchstate.core;

import java.io.File;
import java.util.List;
import java.util.Optional;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;

/**
 * The Branchstate state service (an OSGi service). A repository is named by its Git directory (the
 * {@code .git} folder, or the worktree's git dir for a linked worktree).
 * <p>
 * Long operations report progress to the monitor and are cancellable: cancel surfaces as
 * {@link org.eclipse.core.runtime.OperationCanceledException} and leaves nothing half-done.
 */
public interface IStateService {

	/** @return the Git directory of the repository that holds the project, if it is in one */
	Optional<File> repositoryOf(IProject project);

	/**
	 * Saves the state of the repository's projects for the commit HEAD is at now (and the current branch, if any).
	 * Replaces an older state of the same branch unless another branch still uses it.
	 */
	StateInfo save(File gitDir, IProgressMonitor monitor) throws CoreException;

	/**
	 * Restores the stored state for {@code commitId} into the repository's projects, then hands the paths that
	 * differ between that state and the working tree to contributors and builders.
	 */
	RestoreResult restore(File gitDir, String commitId, IProgressMonitor monitor) throws CoreException;

	/** @return the stored states of the repository, newest first */
	List<StateInfo> states(File gitDir);

	/** @return every stored state, newest first */
	List<StateInfo> allStates();

	/** Deletes a stored state and its archive. */
	void delete(StateInfo state) throws CoreException;

	void addStateListener(IStateListener listener);

	void removeStateListener(IStateListener listener);
}
