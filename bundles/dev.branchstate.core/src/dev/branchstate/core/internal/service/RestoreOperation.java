package dev.branchstate.core.internal.service;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.MultiStatus;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.osgi.util.NLS;

import dev.branchstate.archive.ArchiveCanceledException;
import dev.branchstate.archive.ArchiveEntry;
import dev.branchstate.archive.ArchiveException;
import dev.branchstate.archive.ArchiveReader;
import dev.branchstate.archive.ExtractOptions;
import dev.branchstate.archive.ExtractPlan;
import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.core.IStateContributor;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.Laps;
import dev.branchstate.core.internal.Log;
import dev.branchstate.core.internal.Messages;
import dev.branchstate.core.internal.Trace;
import dev.branchstate.core.internal.build.BuildManagerAccess;
import dev.branchstate.core.internal.build.CleanBuildJob;
import dev.branchstate.core.internal.contributors.ContributorRegistry;
import dev.branchstate.core.internal.contributors.ContributorRegistry.Outcome;
import dev.branchstate.core.internal.contributors.DerivedResourcesContributor;
import dev.branchstate.core.internal.contributors.ProblemMarkersContributor;

/**
 * One restore of the parts selected, run inside one workspace operation that holds the projects' rule. First,
 * before anything is written: the plan (which entries each contributor's extractions will write: the files that
 * differ from the state) and the check of what will be read (sizes and CRC-32 of those entries and of every other
 * entry of the parts), so that a damaged archive is refused with nothing written, at a cost that follows the change;
 * meanwhile Git reads the working tree's status, and the changes since the state ({@link StateChanges}) are asked
 * for only then, to choose the parts to write (a {@link PartsChooser}: the builder states that can be handed off).
 * Then the writing: each part's contributor (what it reads of the state decoded ahead on a thread of its own,
 * {@link PreparedParts}), the hand-off of the builders whose own state came back with their
 * output, the touches of the changed sources (after the hand-off, so that those builders see exactly them), and the
 * fail-safe. One object per restore; its counters are the restore's figures.
 */
final class RestoreOperation {

	/** One part of the state to restore: its contributor, the project it goes to, the builder states it holds. */
	record Selected(StateLayout.Part part, IStateContributor contributor, IProject project, Set<String> builders) {
	}

	private final IWorkspace workspace;
	private final ContributorRegistry contributors;
	private final RestoreJournal journal;
	private final ArchiveReader reader;
	private final StateInfo state;
	private final String currentCommit;
	/** What differs from the state in the working tree: asked for once the plan and the check are done. */
	private final StateChanges changes;
	/** The changes per project, once known (after the check). */
	private Map<IProject, Set<IPath>> changed = Map.of();
	/** The parts the restore writes, once chosen (after the check). */
	private List<Selected> parts = List.of();
	private final MultiStatus problems;
	private final BooleanSupplier canceled;
	/** What the last state saved or restored says of the files on disk ({@code null}: nothing known). */
	private final KnownFiles knownFiles;
	/** Each planned part's context, in the order of the parts. */
	private final Map<Selected, RestoreContext> contexts = new LinkedHashMap<>();
	int succeeded;
	long touched;
	/** The projects whose derived data was removed by the fail-safe. */
	private final Set<IProject> discarded = new LinkedHashSet<>();
	/** Every planned folder was empty: their entries were left to be checked as they are written. */
	private boolean intoEmptyFolders;
	/** The restore's timing trace. */
	private final Laps laps;
	/**
	 * What the plans, the check and the extractions of this restore share: its worker threads (one pool for all of
	 * them, not one per folder), cancel, the bound of the state's size, the files known on disk. Set by {@link #run}.
	 */
	private ExtractOptions shared;

	RestoreOperation(IWorkspace workspace, ContributorRegistry contributors, RestoreJournal journal,
			ArchiveReader reader, StateInfo state, String currentCommit, StateChanges changes, MultiStatus problems,
			BooleanSupplier canceled, KnownFiles knownFiles, Laps laps) {
		this.workspace = workspace;
		this.laps = laps;
		this.knownFiles = knownFiles;
		this.contributors = contributors;
		this.journal = journal;
		this.reader = reader;
		this.state = state;
		this.currentCommit = currentCommit;
		this.changes = changes;
		this.problems = problems;
		this.canceled = canceled;
	}

	/**
	 * The projects whose builder states may be restored and handed to their builders: their output is restored in
	 * the same state, no file of the state is missing from the working tree (a builder handed the restored tree
	 * would never hear that it is gone, and would keep what it built from it), and every project they reference is
	 * such a project too (a builder reads the state of its prerequisites).
	 */
	static Set<IProject> handOffCandidates(List<Selected> selected, Map<IProject, Set<IPath>> changed) {
		if (!BuildManagerAccess.available()) {
			return Set.of();
		}
		Set<IProject> candidates = new LinkedHashSet<>();
		for (Selected s : selected) {
			IProject project = s.project();
			if (!s.builders().isEmpty() && hasOutput(selected, project)
					&& gone(project, changed.getOrDefault(project, Set.of())).isEmpty()) {
				candidates.add(project);
			}
		}
		boolean removed = true;
		while (removed) {
			removed = false;
			for (IProject project : List.copyOf(candidates)) {
				try {
					for (IProject referenced : project.getReferencedProjects()) {
						if (referenced.isAccessible() && !candidates.contains(referenced)) {
							removed |= candidates.remove(project);
						}
					}
				} catch (CoreException e) {
					removed |= candidates.remove(project);
				}
			}
		}
		return candidates;
	}

	private static boolean hasOutput(List<Selected> selected, IProject project) {
		return selected.stream().anyMatch(s -> s.project().equals(project)
				&& s.part().contributorId().equals(DerivedResourcesContributor.ID));
	}

	/**
	 * A file of the state's tree that the working tree no longer has: only a builder whose last build saw it gets
	 * the REMOVED delta that makes it drop its output (a class file of a source that neither the commit left nor the
	 * one entered has would otherwise survive, and code could still compile against it).
	 *
	 * @return the first such file that a project's builders would not hear of, as "project/path"
	 */
	static Optional<String> unfollowable(Map<IProject, Set<IPath>> changed) {
		for (Map.Entry<IProject, Set<IPath>> e : changed.entrySet()) {
			IProject project = e.getKey();
			List<IPath> gone = gone(project, e.getValue());
			if (!BuildManagerAccess.builtTreesContain(project, gone)) {
				return gone.stream().filter(path -> !BuildManagerAccess.builtTreesContain(project, List.of(path)))
						.findFirst().map(path -> project.getName() + '/' + path.toPortableString());
			}
		}
		return Optional.empty();
	}

	private static List<IPath> gone(IProject project, Set<IPath> paths) {
		Path location = project.getLocation().toFile().toPath();
		return paths.stream()
				.filter(path -> !Files.exists(location.resolve(path.toOSString()), LinkOption.NOFOLLOW_LINKS))
				.toList();
	}

	/** Chooses the parts to write once the changes since the state are known, or refuses the restore. */
	@FunctionalInterface
	interface PartsChooser {
		/**
		 * @param changed project → paths that differ from the state
		 * @return the parts to write, of those planned, in their order
		 * @throws CoreException to refuse the restore (nothing is written)
		 */
		List<Selected> choose(Map<IProject, Set<IPath>> changed) throws CoreException;
	}

	/**
	 * Plans and checks the selected parts while the changes since the state are still being found, then has the
	 * parts to write chosen from them, restores those, hands off, touches; on a failure once writing began, removes
	 * the derived data and has it rebuilt in full. The restore is on record in the journal while it writes, and until
	 * its projects' builders have built, so that the next session does the same if it never ends or is killed before.
	 *
	 * @throws CoreException when the archive is damaged or the chooser refuses (nothing written), or the restore
	 *                       failed
	 */
	void run(List<Selected> selected, PartsChooser chooser, SubMonitor monitor) throws CoreException {
		ExtractOptions options = extractOptions(canceled);
		ExecutorService pool = Executors.newFixedThreadPool(options.workers(),
				Thread.ofPlatform().name("branchstate-restore-", 1).daemon().factory()); //$NON-NLS-1$
		try {
			// (daemons: a restore that hangs does not keep the IDE from exiting)
			shared = options.withExecutor(pool).withMaxTotalSize(totalBound()).withKnownFiles(knownFiles);
			planCheckWrite(selected, chooser, SubMonitor.convert(monitor, 100));
		} finally {
			pool.shutdownNow();
		}
	}

	private void planCheckWrite(List<Selected> selected, PartsChooser chooser, SubMonitor steps)
			throws CoreException {
		laps.lap("rule"); //$NON-NLS-1$
		plan(selected, steps.split(5));
		laps.lap("plan"); //$NON-NLS-1$
		if (Trace.on(Trace.RESTORE)) {
			tracePlan(selected);
		}
		check(selected, steps.split(35));
		laps.lap("check"); //$NON-NLS-1$
		changed = changes.get().byProject();
		laps.lap("changed paths"); //$NON-NLS-1$
		parts = List.copyOf(chooser.choose(changed));
		SubMonitor monitor = steps.split(60);
		List<IProject> projects = parts.stream().map(Selected::project).distinct().toList();
		RestoreJournal.Entry entry;
		try {
			entry = journal.begin(projects);
		} catch (IOException e) {
			throw new CoreException(Status.error(Messages.Service_restoreNotRecorded, e));
		}
		laps.lap("journal"); //$NON-NLS-1$
		try {
			write(parts, projects, monitor);
		} catch (CoreException | RuntimeException e) {
			entry.awaitBuild(); // (the fail-safe's full builds are in memory too until they ran)
			throw e;
		} catch (Error e) {
			entry.abandon(); // no fail-safe ran: the journal's recovery does it
			throw e;
		}
		entry.awaitBuild(); // the hand-off is in memory until the builders have built or a full save wrote it
		laps.lap("journal"); //$NON-NLS-1$
	}

	/**
	 * @return the bound of what the restore extracts or checks: the state's data size as the catalog knows it (for a
	 *         fetched state, as its signed manifest declares) and an eighth more, at least 64 MiB (the size is the
	 *         stat of the files when they were saved; one that grew while it was read is not a bomb). An archive
	 *         whose entries claim more is refused before anything is written.
	 */
	private long totalBound() {
		long size = state.uncompressedSize();
		return size <= 0 ? Long.MAX_VALUE : size + Math.max(size / 8, 64L << 20);
	}

	/**
	 * Makes each part's context and asks its contributor where it will extract; plans those extractions. A
	 * contributor that cannot tell, or a folder that cannot be looked at, leaves its entries to be checked in full.
	 */
	private void plan(List<Selected> selected, SubMonitor monitor) {
		monitor.setWorkRemaining(Math.max(1, selected.size()));
		for (Selected s : selected) {
			RestoreContext context = new RestoreContext(reader, s.part(), s.project(), state.commitId(),
					currentCommit, changes, shared);
			contexts.put(s, context);
			Outcome<Map<String, Path>> targets = ContributorRegistry
					.safely(() -> s.contributor().extractionTargets(context));
			if (targets.ok()) {
				for (Map.Entry<String, Path> t : targets.value().entrySet()) {
					monitor.checkCanceled();
					try {
						context.plan(t.getKey(), t.getValue());
					} catch (ArchiveCanceledException e) {
						throw new OperationCanceledException(e.getMessage());
					} catch (IOException e) {
						// not planned: its entries are checked in full, and it is extracted as without a plan
					}
				}
			}
			monitor.worked(1);
		}
	}

	/**
	 * The plan on the trace: every entry of the parts that the check will read (and the extractions write), then the
	 * counts. An entry a plan found identical on disk is neither read nor written.
	 */
	private void tracePlan(List<Selected> selected) {
		List<ExtractPlan> plans = contexts.values().stream().flatMap(c -> c.plans().stream()).toList();
		int read = 0;
		int identical = 0;
		for (String prefix : selected.stream().map(s -> s.part().prefix()).distinct().toList()) {
			for (ArchiveEntry entry : reader.entries(prefix)) {
				String name = entry.name();
				if (entry.isDirectory()) {
					continue;
				}
				Optional<ExtractPlan> plan = plans.stream().filter(p -> name.startsWith(p.prefix())).findFirst();
				if (plan.isEmpty() || plan.get().writes(name)) {
					Trace.trace(Trace.RESTORE, "restore reads " + name); //$NON-NLS-1$
					read++;
				} else {
					identical++;
				}
			}
		}
		Trace.trace(Trace.RESTORE, "restore plan of " + state.commitId() + ": reads " + read + " entries, " //$NON-NLS-1$ //$NON-NLS-2$
				+ identical + " identical on disk"); //$NON-NLS-1$
	}

	/**
	 * Reads to its end every entry of the parts that will be read (not those a plan found identical on disk), which
	 * checks sizes and CRC-32: a damaged archive is found before anything is written. When every planned folder is
	 * empty, the entries planned into them are checked as they are written instead.
	 */
	private void check(List<Selected> selected, SubMonitor monitor) throws CoreException {
		monitor.setTaskName(Messages.Service_verifying);
		List<String> prefixes = selected.stream().map(s -> s.part().prefix()).distinct().toList();
		List<ExtractPlan> plans = contexts.values().stream().flatMap(c -> c.plans().stream()).toList();
		// a restore into empty folders only (a fresh clone, a cleaned project): their entries are checked as they are
		// written, and a damaged one makes the contributor remove what it wrote (its transactional contract), which
		// leaves the folders as empty as they were; the archive is read once instead of twice
		intoEmptyFolders = !plans.isEmpty() && plans.stream().allMatch(ExtractPlan::emptyTarget);
		try {
			reader.verify(prefixes, plans, shared.withCancel(monitor::isCanceled)
					.withEmptyTargetsCheckedWhileWritten(intoEmptyFolders));
		} catch (ArchiveCanceledException e) {
			throw new OperationCanceledException(e.getMessage());
		} catch (IOException e) {
			throw new CoreException(Status.error(String.valueOf(e.getMessage()), e));
		}
	}

	private void write(List<Selected> selected, List<IProject> projects, SubMonitor monitor) throws CoreException {
		SubMonitor work = SubMonitor.convert(monitor, selected.size() + changed.size() + 1);
		try {
			Set<IProject> failed = new HashSet<>();
			Set<IProject> markersRestored = new HashSet<>();
			Map<IProject, Set<String>> builderStates = new LinkedHashMap<>();
			List<RestoreContext> partContexts = selected.stream().map(contexts::get).toList();
			try (PreparedParts prepared = PreparedParts.start(selected, partContexts, canceled)) {
				for (int i = 0; i < selected.size(); i++) {
					Selected s = selected.get(i);
					boolean restored = restore(s, partContexts.get(i), prepared, i, work.split(1));
					laps.lap(s.part().contributorId() + '@' + s.project().getName());
					if (restored) {
						if (s.part().contributorId().equals(ProblemMarkersContributor.ID)) {
							markersRestored.add(s.project());
						}
						if (!s.builders().isEmpty()) {
							builderStates.computeIfAbsent(s.project(), p -> new LinkedHashSet<>())
									.addAll(s.builders());
						}
					} else {
						failed.add(s.project());
						if (s.part().contributorId().equals(DerivedResourcesContributor.ID)) {
							// it empties what it was restoring when it fails: nothing the project's builders believe in
							rebuildInFull(s.project());
						}
					}
				}
			}
			for (IProject project : failed) {
				if (builderStates.remove(project) != null) {
					// a builder's state came back, but not everything it was built with: it cannot be handed off
					rebuildInFull(project);
				}
			}
			withMarkerBuilders(builderStates, markersRestored);
			if (!builderStates.isEmpty()) {
				if (!BuildManagerAccess.handOff(workspace, builderStates)) {
					builderStates.keySet().forEach(RestoreOperation::rebuildInFull);
				}
			}
			laps.lap("hand-off"); //$NON-NLS-1$
			work.worked(1);
			for (Map.Entry<IProject, Set<IPath>> e : changed.entrySet()) {
				touched += touch(e.getKey(), e.getValue());
				work.worked(1);
			}
			laps.lap("touched"); //$NON-NLS-1$
		} catch (CoreException | RuntimeException e) {
			// derived data may already be restored while the changed sources are not touched: remove it, and have
			// the builders rebuild it in full, as if Branchstate were absent
			for (IProject p : projects) {
				try {
					discardDerivedData(p, contributors);
				} catch (CoreException | RuntimeException discardFailure) {
					e.addSuppressed(discardFailure);
				}
				discarded.add(p);
			}
			throw e;
		}
	}

	/**
	 * Adds the builders whose whole output is problem markers ({@link ContributorRegistry#markerBuilders}, PDE's
	 * manifest builder) to the hand-off of each project whose builder states are handed over and whose markers were
	 * restored: they then validate only what differs from the restored commit, not the checkout's whole change. A
	 * project whose markers did not come back keeps them seeing the change (the markers on disk are another commit's).
	 */
	private void withMarkerBuilders(Map<IProject, Set<String>> builderStates, Set<IProject> markersRestored) {
		Set<String> markerBuilders = contributors.markerBuilders();
		if (markerBuilders.isEmpty()) {
			return;
		}
		for (Map.Entry<IProject, Set<String>> e : builderStates.entrySet()) {
			if (markersRestored.contains(e.getKey())) {
				e.getValue().addAll(markerBuilders);
			}
		}
	}

	/** @return the contexts of the parts planned (their counters are the restore's figures) */
	Collection<RestoreContext> contexts() {
		return contexts.values();
	}

	/** @return the parts the restore wrote, or would have: empty until they were chosen */
	List<Selected> parts() {
		return parts;
	}

	/**
	 * After the workspace operation was cancelled, which schedules no build: a change of each project whose derived
	 * data was removed, so that the automatic build rebuilds it now rather than at the user's next change.
	 */
	void afterCancel() {
		for (IProject project : discarded) {
			try {
				project.touch(null);
			} catch (CoreException e) {
				// the project's next build rebuilds it all the same
			}
		}
	}

	/**
	 * Restores the part once its preparation is done (a failure of either counts as the restore's).
	 *
	 * @return whether the part's contributor restored it; a failure is added to the problems
	 */
	private boolean restore(Selected s, RestoreContext context, PreparedParts prepared, int index, SubMonitor step)
			throws CoreException {
		Outcome<Object> outcome = ContributorRegistry.safely(() -> {
			context.prepared(prepared.await(index));
			s.contributor().restore(context, step);
			return null;
		});
		step.checkCanceled();
		if (!outcome.ok() && intoEmptyFolders && archiveFailure(outcome.failure()) != null) {
			// found while writing into the empty folders: the restore fails as a whole, as the check would have made
			// it (the fail-safe empties the derived folders again, as they were)
			ArchiveException damage = archiveFailure(outcome.failure());
			throw new CoreException(Status.error(String.valueOf(damage.getMessage()), damage));
		}
		if (!outcome.ok()) {
			problems.add(ContributorRegistry.statusOf(NLS.bind(Messages.Service_contributorRestoreFailed,
					s.part().contributorId(), s.project().getName()), outcome.failure()));
		} else {
			succeeded++;
		}
		return outcome.ok();
	}

	/** @return the archive's complaint behind a contributor's failure, {@code null} when there is none */
	private static ArchiveException archiveFailure(Throwable failure) {
		for (Throwable t = failure; t != null; t = t.getCause()) {
			if (t instanceof ArchiveException e) {
				return e;
			}
			if (t instanceof CoreException c && c.getStatus().getException() != null
					&& c.getStatus().getException() != t.getCause()) {
				return archiveFailure(c.getStatus().getException());
			}
		}
		return null;
	}

	/** @return extraction settings of the preferences (worker threads), cancelled when {@code canceled} says so */
	static ExtractOptions extractOptions(BooleanSupplier canceled) {
		ExtractOptions options = ExtractOptions.defaults().withCancel(canceled);
		int workers = StorePreferences.intValue(BranchstatePreferences.WORKER_THREADS, 0);
		return workers > 0 ? options.withWorkers(workers) : options;
	}

	/**
	 * The fail-safe of a restore that cannot be completed once it may have written: removes the project's derived
	 * data and has its builders build it in full, as if Branchstate were absent. Needs the project's rule.
	 */
	static void discardDerivedData(IProject project, ContributorRegistry contributors) throws CoreException {
		try {
			DerivedResourcesContributor.discard(project, contributors.derivedFolders(project));
		} finally {
			rebuildInFull(project);
		}
	}

	/**
	 * Makes the project's builders build it in full next time: for derived data they can no longer trust. Without
	 * the internal build manager, a clean build is scheduled instead (it runs once the current rule is released).
	 */
	private static void rebuildInFull(IProject project) {
		if (!BuildManagerAccess.forgetBuiltState(project)) {
			CleanBuildJob.schedule(project);
		}
	}

	/** Touches the changed source files so that incremental builders redo them. @return files touched */
	private static long touch(IProject project, Set<IPath> paths) throws CoreException {
		long count = 0;
		for (IPath path : paths) {
			IFile file = project.getFile(path);
			file.refreshLocal(IResource.DEPTH_ZERO, null);
			if (file.exists() && !file.isDerived(IResource.CHECK_ANCESTORS)) {
				file.touch(null);
				count++;
			}
		}
		return count;
	}
}
