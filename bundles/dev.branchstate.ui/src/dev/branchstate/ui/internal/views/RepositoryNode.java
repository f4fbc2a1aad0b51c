package dev.branchstate.ui.internal.views;

import java.io.File;
import java.util.List;

import dev.branchstate.ui.internal.GitInfo;

/**
 * A repository as the view shows it: its name, where HEAD is, and its stored states (newest first).
 *
 * @param gitDir the Git directory
 * @param name   the work tree's folder name
 * @param head   HEAD, or {@code null} when it could not be read
 * @param states the rows of its states
 * @param error  why HEAD or commit messages could not be read, or {@code null}
 */
public record RepositoryNode(File gitDir, String name, GitInfo.Head head, List<StateRow> states, String error) {

	/** @return whether one of the states is at HEAD's commit */
	public boolean headHasState() {
		return states.stream().anyMatch(r -> r.head() && r.local());
	}
}
