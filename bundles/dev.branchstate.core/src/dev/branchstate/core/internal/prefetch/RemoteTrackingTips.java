package dev.branchstate.core.internal.prefetch;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.eclipse.jgit.lib.BranchConfig;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevWalk;

import dev.branchstate.core.internal.switching.SwitchProtocol;

/**
 * The remote-tracking branches of a repository whose states are prefetched, and their tips: those that match the
 * {@link dev.branchstate.core.BranchstatePreferences#PREFETCH_REFS} patterns (short names such as
 * {@code origin/main}), or by default those whose branch name (without the remote) matches the switching patterns,
 * and the upstream of the branch checked out. The upstream comes first, then the newest tips: a budget that runs out
 * leaves out the branches least likely checked out next.
 */
final class RemoteTrackingTips {

	private RemoteTrackingTips() {
	}

	/** @return full ref name → tip, in the order to prefetch them */
	static Map<String, ObjectId> of(Repository repository, PrefetchSettings settings) throws IOException {
		Set<String> remotes = repository.getRemoteNames();
		String upstream = upstream(repository);
		List<Ref> selected = new ArrayList<>();
		for (Ref ref : repository.getRefDatabase().getRefsByPrefix(Constants.R_REMOTES)) {
			if (ref.isSymbolic() || ref.getObjectId() == null) {
				continue; // origin/HEAD
			}
			String shortName = ref.getName().substring(Constants.R_REMOTES.length());
			if (ref.getName().equals(upstream) || selected(shortName, remotes, settings)) {
				selected.add(ref);
			}
		}
		Map<Ref, Integer> times = new LinkedHashMap<>();
		try (RevWalk walk = new RevWalk(repository)) {
			for (Ref ref : selected) {
				int time;
				try {
					time = walk.parseCommit(ref.getObjectId()).getCommitTime();
				} catch (IOException e) {
					time = Integer.MIN_VALUE; // not a commit (a tag's tree?), or missing: last
				}
				times.put(ref, Integer.valueOf(time));
			}
		}
		selected.sort(Comparator.comparing((Ref r) -> !r.getName().equals(upstream))
				.thenComparing(r -> times.get(r), Comparator.reverseOrder()));
		Map<String, ObjectId> tips = new LinkedHashMap<>();
		for (Ref ref : selected) {
			tips.put(ref.getName(), ref.getObjectId());
		}
		return tips;
	}

	private static boolean selected(String shortName, Set<String> remotes, PrefetchSettings settings) {
		if (!settings.refPatterns().isEmpty()) {
			return SwitchProtocol.matches(settings.refPatterns(), shortName);
		}
		for (String remote : remotes) {
			if (shortName.startsWith(remote + '/')) {
				return SwitchProtocol.matches(settings.branchPatterns(), shortName.substring(remote.length() + 1));
			}
		}
		return false;
	}

	/** @return the full name of the remote-tracking branch the current branch follows, or {@code null} */
	private static String upstream(Repository repository) throws IOException {
		String branch = repository.getBranch();
		if (branch == null || ObjectId.isId(branch)) {
			return null;
		}
		return new BranchConfig(repository.getConfig(), branch).getRemoteTrackingBranch();
	}
}
