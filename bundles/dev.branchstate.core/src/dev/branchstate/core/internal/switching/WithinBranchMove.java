package dev.branchstate.core.internal.switching;

import java.io.IOException;
import java.util.List;

import org.eclipse.jgit.lib.Repository;

import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.service.ChangedPaths;
import dev.branchstate.core.internal.service.WorkingTreeStatus;

/**
 * HEAD moved within its branch, and no commit moved it: a pull, a reset, a rebase. Whether a stored state is worth
 * restoring then depends on what the builders would have to redo from it, against what they would redo from the
 * derived data on disk — a fast-forward pull of many commits: much; {@code git reset --soft} or {@code --mixed},
 * which keep the files as they were: nothing.
 */
final class WithinBranchMove {

	private final Repository repository;
	private final WorkingTreeStatus status;
	/** Files that differ from what the derived data on disk was built from; MAX_VALUE when it reflects no known commit. */
	private final int toRedoFromDisk;

	private WithinBranchMove(Repository repository, WorkingTreeStatus status, int toRedoFromDisk) {
		this.repository = repository;
		this.status = status;
		this.toRedoFromDisk = toRedoFromDisk;
	}

	/**
	 * Compares the working tree with the commit whose build is on disk (one {@code git status}).
	 *
	 * @param derived what the derived data on disk reflects, {@code null} when unknown
	 */
	static WithinBranchMove measure(Repository repository, Head derived) throws IOException {
		WorkingTreeStatus status = WorkingTreeStatus.read(repository);
		int fromDisk = derived == null ? Integer.MAX_VALUE
				: ChangedPaths.countDiffering(repository, derived.commitId(), List.of(), status.dirty());
		return new WithinBranchMove(repository, status, fromDisk);
	}

	/** @return the working tree's status the move was measured with: a restore after it needs no second one */
	WorkingTreeStatus status() {
		return status;
	}

	/** @return whether the derived data on disk already matches the working tree (the files stayed as they were) */
	boolean nothingToRedo() {
		return toRedoFromDisk == 0;
	}

	/** @return whether restoring the state leaves the builders fewer files to redo than keeping the data on disk */
	boolean lessToRedoFrom(StateInfo state) throws IOException {
		return ChangedPaths.countDiffering(repository, state.commitId(), state.dirtyPaths(), status.dirty()) < toRedoFromDisk;
	}
}
