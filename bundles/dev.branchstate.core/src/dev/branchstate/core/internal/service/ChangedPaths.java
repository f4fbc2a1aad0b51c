package dev.branchstate.core.internal.service;

import java.io.IOException;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;

import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.Status;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

/**
 * Repository-relative paths whose content in the working tree differs from a state: the files that differ between
 * the state's commit and HEAD, the files dirty in the working tree now (modified, added, removed, missing,
 * untracked, conflicting; ignored files excluded) and the files that were dirty when the state was saved.
 */
final class ChangedPaths {

	private ChangedPaths() {
	}

	static Set<String> compute(Repository repository, String stateCommit, Collection<String> dirtyAtSave)
			throws IOException {
		Set<String> result = new TreeSet<>(dirtyAtSave);
		ObjectId head = repository.resolve(Constants.HEAD);
		ObjectId state = ObjectId.fromString(stateCommit);
		if (head != null && !head.equals(state)) {
			try (RevWalk walk = new RevWalk(repository); TreeWalk tw = new TreeWalk(repository)) {
				tw.addTree(walk.parseCommit(state).getTree());
				tw.addTree(walk.parseCommit(head).getTree());
				tw.setRecursive(true);
				tw.setFilter(TreeFilter.ANY_DIFF);
				while (tw.next()) {
					result.add(tw.getPathString());
				}
			}
		}
		result.addAll(dirty(repository));
		return result;
	}

	/** @return the paths dirty in the working tree now */
	static Set<String> dirty(Repository repository) throws IOException {
		try {
			Status status = Git.wrap(repository).status().call();
			Set<String> result = new TreeSet<>();
			result.addAll(status.getModified());
			result.addAll(status.getChanged());
			result.addAll(status.getAdded());
			result.addAll(status.getRemoved());
			result.addAll(status.getMissing());
			result.addAll(status.getUntracked());
			result.addAll(status.getConflicting());
			return result;
		} catch (GitAPIException e) {
			throw new IOException(e.getMessage(), e);
		}
	}
}
