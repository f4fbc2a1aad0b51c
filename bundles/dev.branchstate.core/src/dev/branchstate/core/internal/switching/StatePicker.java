package dev.branchstate.core.internal.switching;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.Messages;

/**
 * Picks the stored state to restore for a commit: the state of that very commit, else the state whose commit is the
 * nearest ancestor (fewest parent steps, breadth first, at most {@code maxWalk} commits visited) provided that no more
 * than {@code maxChangedFiles} files differ between the two commits (plus the state's dirty paths).
 */
public final class StatePicker {

	/** A state to restore: {@code distance} parent steps away, {@code changedFiles} files to rebuild. */
	record Pick(StateInfo state, int distance, int changedFiles) {
	}

	/** Why nothing was picked, for the SKIPPED event. */
	record NoPick(String reason) {
	}

	private final int maxWalk;
	private final int maxChangedFiles;

	public StatePicker(int maxWalk, int maxChangedFiles) {
		this.maxWalk = maxWalk;
		this.maxChangedFiles = maxChangedFiles;
	}

	/** The commit nearest to a target among some: the target itself ({@code distance} 0) or an ancestor. */
	public record Nearest(String commit, int distance) {
	}

	/**
	 * @param states the repository's states, newest first
	 * @return a {@link Pick} or a {@link NoPick}
	 */
	Object pick(Repository repository, List<StateInfo> states, String target, SubMonitor monitor) throws IOException {
		Map<String, StateInfo> byCommit = new HashMap<>();
		for (StateInfo state : states) {
			byCommit.putIfAbsent(state.commitId(), state);
		}
		StateInfo exact = byCommit.get(target);
		if (exact != null) {
			return new Pick(exact, 0, exact.dirtyPaths().size());
		}
		if (byCommit.isEmpty()) {
			return new NoPick(Messages.Switch_noStates);
		}
		Object nearest = nearest(repository, byCommit.keySet(), target, monitor);
		if (!(nearest instanceof Nearest n)) {
			return nearest;
		}
		StateInfo state = byCommit.get(n.commit());
		try (RevWalk walk = new RevWalk(repository)) {
			int changed = countChangedFiles(repository, walk, walk.parseCommit(ObjectId.fromString(n.commit())),
					walk.parseCommit(ObjectId.fromString(target)), maxChangedFiles + 1) + state.dirtyPaths().size();
			if (changed > maxChangedFiles) {
				return new NoPick(Messages.bind(Messages.Switch_tooManyChanges, new Object[] {
						n.commit().substring(0, 10), Integer.valueOf(changed), Integer.valueOf(maxChangedFiles) }));
			}
			return new Pick(state, n.distance(), changed);
		}
	}

	/**
	 * @return the {@link Nearest} of {@code commits} to {@code target} (fewest parent steps, breadth first, at most
	 *         {@code maxWalk} commits visited), or a {@link NoPick}
	 */
	public Object nearest(Repository repository, Set<String> commits, String target, SubMonitor monitor)
			throws IOException {
		if (commits.contains(target)) {
			return new Nearest(target, 0);
		}
		if (commits.isEmpty()) {
			return new NoPick(Messages.Switch_noStates);
		}
		try (RevWalk walk = new RevWalk(repository)) {
			RevCommit start = walk.parseCommit(ObjectId.fromString(target));
			ArrayDeque<RevCommit> queue = new ArrayDeque<>();
			Map<RevCommit, Integer> depth = new HashMap<>();
			Set<RevCommit> seen = new HashSet<>();
			queue.add(start);
			seen.add(start);
			depth.put(start, 0);
			int visited = 0;
			monitor.setWorkRemaining(maxWalk);
			while (!queue.isEmpty() && visited < maxWalk) {
				if (monitor.isCanceled()) {
					throw new OperationCanceledException();
				}
				RevCommit commit = queue.poll();
				visited++;
				monitor.worked(1);
				if (commits.contains(commit.name())) {
					return new Nearest(commit.name(), depth.get(commit).intValue());
				}
				walk.parseHeaders(commit);
				for (RevCommit parent : commit.getParents()) {
					if (seen.add(parent)) {
						walk.parseHeaders(parent);
						depth.put(parent, depth.get(commit) + 1);
						queue.add(parent);
					}
				}
			}
			return new NoPick(Messages.bind(Messages.Switch_noAncestor, Integer.valueOf(maxWalk)));
		}
	}

	/** @return the number of files that differ between the trees of two commits, counting at most {@code limit} */
	private static int countChangedFiles(Repository repository, RevWalk walk, RevCommit from, RevCommit to, int limit)
			throws IOException {
		try (TreeWalk tree = new TreeWalk(repository)) {
			tree.addTree(from.getTree());
			tree.addTree(to.getTree());
			tree.setRecursive(true);
			tree.setFilter(TreeFilter.ANY_DIFF);
			int count = 0;
			while (tree.next() && count < limit) {
				count++;
			}
			return count;
		}
	}
}
