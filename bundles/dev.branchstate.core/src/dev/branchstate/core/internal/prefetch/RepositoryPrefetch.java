package dev.branchstate.core.internal.prefetch;

import java.io.File;
import java.io.IOException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;

import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.Log;
import dev.branchstate.core.internal.Messages;
import dev.branchstate.core.internal.service.RemoteService;
import dev.branchstate.core.internal.service.StateService;
import dev.branchstate.core.internal.service.StorePreferences;
import dev.branchstate.core.internal.switching.StatePicker;

/**
 * One prefetch of one repository, start to end: the tips of its selected remote-tracking branches that moved since they
 * were last handled (and the commits a bisect in progress checks out next, {@link BisectCandidates}), the commits
 * published in the remote store (one listing), for each moved tip the nearest published commit (the tip or an ancestor,
 * as a switch picks it), and the fetch of those not stored locally while the budget lasts. Each tip is recorded as
 * handled once its state is local, unpublished, or left out by the budget; a run cancelled leaves the tips it did not
 * handle to the next run.
 */
final class RepositoryPrefetch {

	/** Commits visited at most from a tip back to a published commit: the switch's bound. */
	private static final int MAX_WALK = Integer.getInteger("dev.branchstate.switch.maxWalk", 1000).intValue(); //$NON-NLS-1$

	private final StateService service;
	private final RemoteService remote;
	private final Repository repository;
	private final File gitDir;
	private final List<IProject> projects;
	private final SeenTips seen;
	private final PrefetchLedger ledger;

	/** What the run did: states fetched, and tips left out by the budget. */
	record Outcome(int fetched, int leftOut) {
	}

	/**
	 * @param repository the repository, opened once for as long as it is followed: reading the refs of a Repository
	 *                   opened anew tells JGit's listeners that they changed, and the switch manager checks HEAD
	 *                   then
	 * @param gitDir     its Git directory, canonical (as the store keys it)
	 */
	RepositoryPrefetch(StateService service, Repository repository, File gitDir, SeenTips seen,
			PrefetchLedger ledger) {
		this.service = service;
		this.remote = service.remote();
		this.repository = repository;
		this.gitDir = gitDir;
		this.projects = service.projectsOf(gitDir);
		this.seen = seen;
		this.ledger = ledger;
	}

	/**
	 * Reads the repository's refs only (no request): a repository new to the prefetch has its tips taken as they are,
	 * and tips that moved while the prefetch cannot run (off, no remote store or key) are taken as handled.
	 *
	 * @return whether selected remote-tracking branches moved and the prefetch can fetch for them: a job to run
	 */
	boolean moved() throws IOException {
		return !moved(PrefetchSettings.of(projects)).isEmpty();
	}

	private Map<String, ObjectId> moved(PrefetchSettings settings) throws IOException {
		// a bisect's next commits first: checked out within minutes
		Map<String, ObjectId> tips = new LinkedHashMap<>(BisectCandidates.of(repository));
		tips.putAll(RemoteTrackingTips.of(repository, settings));
		if (!seen.known(gitDir)) {
			seen.handled(gitDir, tips); // a repository new to the prefetch: what moves from now on
			return Map.of();
		}
		Map<String, ObjectId> moved = seen.moved(gitDir, tips);
		if (!moved.isEmpty() && (projects.isEmpty() || !settings.enabled() || !remote.usableForPrefetch())) {
			seen.handled(gitDir, moved);
			return Map.of();
		}
		return moved;
	}

	/**
	 * @throws org.eclipse.core.runtime.OperationCanceledException when the monitor is cancelled: a build or a switch
	 *                                                             began
	 */
	Outcome run(SubMonitor monitor) throws IOException {
		PrefetchSettings settings = PrefetchSettings.of(projects);
		Map<String, ObjectId> moved = moved(settings);
		if (moved.isEmpty()) {
			return new Outcome(0, 0);
		}
		monitor.setWorkRemaining(moved.size() * 10 + 1);
		Set<String> published;
		try {
			published = remote.publishedCommits(repository, gitDir);
		} catch (CoreException e) {
			logMissed(e); // tried again at the next move
			seen.handled(gitDir, moved);
			return new Outcome(0, 0);
		}
		monitor.worked(1);
		return fetchNearest(moved, published, settings, monitor);
	}

	private Outcome fetchNearest(Map<String, ObjectId> moved, Set<String> published, PrefetchSettings settings,
			SubMonitor monitor) throws IOException {
		StatePicker picker = new StatePicker(MAX_WALK, Integer.MAX_VALUE);
		Set<String> local = new HashSet<>();
		for (StateInfo state : service.states(gitDir)) {
			local.add(state.commitId());
		}
		int fetched = 0;
		int leftOut = 0;
		for (Map.Entry<String, ObjectId> tip : moved.entrySet()) {
			SubMonitor step = monitor.split(10);
			Object nearest = picker.nearest(repository, published, tip.getValue().name(), step.split(1));
			if (nearest instanceof StatePicker.Nearest n && local.add(n.commit())) {
				long room = room(settings);
				if (room <= 0) {
					leftOut++;
					local.remove(n.commit());
				} else {
					try {
						StateInfo state = remote.prefetch(repository, gitDir, n.commit(), tip.getKey(), tip.getValue(),
								room, step.split(9));
						ledger.fetched(state.gitDir(), state.commitId(), state.size());
						fetched++;
					} catch (CoreException e) {
						local.remove(n.commit());
						if (e.getStatus().getSeverity() == IStatus.INFO) {
							leftOut++; // larger than what is left of the budget
						} else {
							logMissed(e);
						}
					}
				}
			}
			seen.handled(gitDir, Map.of(tip.getKey(), tip.getValue()));
		}
		if (leftOut > 0) {
			Log.info(Messages.bind(Messages.Prefetch_budgetExhausted, gitDir, Integer.valueOf(leftOut)));
		}
		return new Outcome(fetched, leftOut);
	}

	/** @return the bytes a prefetch may still download now: within its share of the disk budget and today's maximum */
	private long room(PrefetchSettings settings) throws IOException {
		PrefetchLedger.Use use = ledger.use(this::stored);
		long share = settings.budgetBytes(StorePreferences.budgetBytes()) - use.prefetchedBytes();
		return Math.min(share, settings.maxBytesPerDay() - use.bytesToday());
	}

	private boolean stored(File repositoryDir, String commit) {
		return service.states(repositoryDir).stream().anyMatch(s -> s.commitId().equals(commit));
	}

	private void logMissed(CoreException e) {
		Log.warning(Messages.bind(Messages.Prefetch_failed, gitDir, e.getStatus().getMessage()), e);
	}
}
