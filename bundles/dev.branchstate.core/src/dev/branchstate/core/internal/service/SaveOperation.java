package dev.branchstate.core.internal.service;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.MultiStatus;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.osgi.util.NLS;

import dev.branchstate.archive.ArchiveCanceledException;
import dev.branchstate.archive.ArchiveProgress;
import dev.branchstate.archive.ArchiveWriter;
import dev.branchstate.archive.Archives;
import dev.branchstate.archive.WriteOptions;
import dev.branchstate.archive.WriteResult;
import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.core.IStateContributor;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.Log;
import dev.branchstate.core.internal.Laps;
import dev.branchstate.core.internal.Messages;
import dev.branchstate.core.internal.contributors.ContributorRegistry;
import dev.branchstate.core.internal.contributors.ContributorRegistry.Descriptor;
import dev.branchstate.core.internal.contributors.ContributorRegistry.Outcome;
import dev.branchstate.core.internal.store.StateStore;
import dev.branchstate.core.internal.store.VerifiedFiles;

/**
 * One save of a repository's state, start to end, under the repository's lock: the plan (the commit and branch, the
 * repository's projects), the check (which projects hold their complete build, which dirty files are sources), the
 * writing of the archive (each contributor's part, shared with a sound previous state where unchanged) and its entry
 * in the store, and the finish (the SAVED event, the states the store retired or evicted). One object per save;
 * {@link StateService} runs it.
 */
final class SaveOperation {

	/** What writing a state archive produced: the state, the contributors' failures, the entries written. */
	private record Written(StateInfo info, MultiStatus problems, long files) {
	}

	private final StateService service;
	private final ContributorRegistry contributors;
	private final StateEvents events;
	private final File dir;
	private final boolean atHead;
	private String commit;
	private String branch;
	private long start;
	private Repository repository;
	/** The open projects of the repository. */
	private List<IProject> inRepository;
	/** The projects whose derived data is their complete build, and those left out with the reason. */
	private CompleteBuilds.Split split;
	/** The dirty paths that are sources of the saved projects. */
	private List<String> dirty;

	/**
	 * @param commitId the commit the derived data belongs to; ignored {@code atHead}
	 * @param branchName its branch, or {@code null}; ignored {@code atHead}
	 * @param atHead whether to save the state of HEAD (its commit and branch read under the lock)
	 */
	SaveOperation(StateService service, StateEvents events, File gitDir, String commitId, String branchName,
			boolean atHead) {
		if (!atHead && (commitId == null || !ObjectId.isId(commitId))) {
			throw new IllegalArgumentException("not a commit id: " + commitId); //$NON-NLS-1$
		}
		this.service = service;
		this.contributors = service.contributors();
		this.events = events;
		this.dir = StateStore.canonical(gitDir);
		this.commit = commitId;
		this.branch = branchName;
		this.atHead = atHead;
	}

	StateInfo run(IProgressMonitor monitor) throws CoreException {
		SubMonitor sub = SubMonitor.convert(monitor, NLS.bind(Messages.Service_saving, dir), 100);
		start = System.nanoTime();
		Laps laps = Laps.start("save " + GitFacts.shortId(commit)); //$NON-NLS-1$
		ReentrantLock lock = service.lockOf(dir);
		lock.lock();
		try (Repository opened = GitFacts.open(dir)) {
			repository = opened;
			laps.lap("repository"); //$NON-NLS-1$
			plan();
			laps.lap("plan"); //$NON-NLS-1$
			check();
			laps.lap("check"); //$NON-NLS-1$
			sub.worked(5);
			StateStore store = service.store();
			Path archive = store.newArchivePath(dir, commit);
			Written written;
			StateStore.AddResult added;
			// the archive's name is held until the catalog names it: a kill in between leaves an archive that the
			// next start deletes (StateStore.cleanOrphans), while a running save's is kept
			try (Closeable hold = Archives.hold(archive)) {
				written = write(archive, sub.split(90));
				laps.lap("written"); //$NON-NLS-1$
				Optional<StateInfo> complete = completeStateOfTheCommit(store, written.info());
				if (complete.isPresent()) {
					Files.deleteIfExists(archive);
					throw events.skipped(dir, commit, branch, NLS.bind(Messages.Service_keptComplete, new Object[] {
							dir, GitFacts.shortId(commit), missingParts(complete.get(), written.info()) }), start);
				}
				added = store.add(written.info(), GitFacts.commitsInUse(repository), StorePreferences.budgetBytes());
				laps.lap("catalog"); //$NON-NLS-1$
			}
			sub.worked(5);
			StateInfo info = finish(written, added);
			laps.lap("told"); //$NON-NLS-1$
			return info;
		} catch (OperationCanceledException e) {
			throw events.canceled(Messages.Service_saveCanceled, dir, commit, branch, e, start);
		} catch (CoreException e) {
			if (e.getStatus().getSeverity() == IStatus.INFO) {
				throw e; // skipped, already told
			}
			throw failed(e.getStatus().getMessage(), e);
		} catch (IOException | RuntimeException e) {
			throw failed(String.valueOf(e.getMessage()), e);
		} finally {
			lock.unlock();
			laps.end();
		}
	}

	/**
	 * A save that left a contributor's part out (its data not ready: JDT's indexer still at work) does not replace a
	 * stored state of the same commit that has that part, when neither was saved from a dirty working tree: both hold
	 * the complete build of the same sources, and the stored one restores without leaving work to the IDE.
	 *
	 * @return the stored state to keep, if any
	 */
	private Optional<StateInfo> completeStateOfTheCommit(StateStore store, StateInfo saved) throws IOException {
		if (!saved.dirtyPaths().isEmpty()) {
			return Optional.empty();
		}
		return store.states(dir).stream()
				.filter(s -> s.commitId().equals(saved.commitId()) && s.dirtyPaths().isEmpty()
						&& !saved.contributors().keySet().containsAll(s.contributors().keySet())
						&& s.contributors().keySet().containsAll(saved.contributors().keySet()))
				.findFirst();
	}

	private static String missingParts(StateInfo kept, StateInfo saved) {
		return String.join(", ", kept.contributors().keySet().stream() //$NON-NLS-1$
				.filter(id -> !saved.contributors().containsKey(id)).sorted().toList());
	}

	// ------------------------------------------------------------------------------------------------- plan

	/** Reads the commit and branch of HEAD when saving HEAD; finds the projects; skips a repository without any. */
	private void plan() throws IOException, CoreException {
		if (atHead) {
			ObjectId head = repository.resolve(Constants.HEAD);
			if (head == null) {
				throw new CoreException(Status.error(NLS.bind(Messages.Service_noHead, dir)));
			}
			commit = head.name();
			branch = GitFacts.currentBranch(repository);
		}
		inRepository = service.projectsOf(dir);
		if (inRepository.isEmpty()) {
			throw events.skipped(dir, commit, branch, NLS.bind(Messages.Service_noProjects, dir), start);
		}
	}

	// ------------------------------------------------------------------------------------------------ check

	/** Keeps the projects that hold their complete build (skips when none does), and the dirty sources. */
	private void check() throws IOException, CoreException {
		split = CompleteBuilds.split(inRepository, this::whyIncomplete);
		if (split.complete().isEmpty()) {
			String reason = split.leftOut().values().iterator().next();
			throw events.skipped(dir, commit, branch, NLS.bind(Messages.Service_notBuilt, dir, reason), start);
		}
		// the working tree as one Git command left it: a checkout running meanwhile would leave files of two commits in
		// what is read, and the state would claim a build of sources it was not built from
		String headBefore = GitFacts.head(repository);
		boolean steady = !GitFacts.commandRunning(repository);
		Set<String> dirtyNow = steady ? ChangedPaths.dirty(repository) : Set.of();
		if (!steady || GitFacts.commandRunning(repository)
				|| !Objects.equals(headBefore, GitFacts.head(repository))) {
			throw events.skipped(dir, commit, branch, NLS.bind(Messages.Service_gitCommandRunning, dir), start);
		}
		dirty = ProjectPaths.relevant(dirtyNow, repository, split.complete(), contributors);
	}

	/**
	 * The save's guard: a project's derived data is saved only when it is the complete build of the tree, so that
	 * restoring it never hands a builder output it does not believe in (a restore that did not finish, a state saved
	 * before its branch was built, a build interrupted or still to run, a build the build manager counts as done but
	 * its builder does not: one that failed). {@link CompleteBuilds} leaves such a project out of the state.
	 *
	 * @return why the project's derived data may not be its complete build, or empty when it is
	 */
	private Optional<String> whyIncomplete(IProject project) {
		if (interrupted(project)) {
			return Optional.of(NLS.bind(Messages.Service_notBuiltInterrupted, project.getName()));
		}
		return service.whyNotBuilt(project);
	}

	/** @return whether a restore of the project did not finish and was not yet recovered */
	private boolean interrupted(IProject project) {
		try {
			return service.restoreJournal().holds(project);
		} catch (IOException e) {
			return true;
		}
	}

	// ------------------------------------------------------------------------------------------------ write

	/** @return the state to copy unchanged entries from: the branch's own, else the repository's newest */
	private Optional<StateInfo> previousState(StateStore store) {
		try {
			List<StateInfo> states = store.states(dir);
			return states.stream().filter(s -> branch != null && s.branches().contains(branch))
					.filter(s -> Files.isRegularFile(s.archive())).findFirst()
					.or(() -> states.stream().filter(s -> Files.isRegularFile(s.archive())).findFirst());
		} catch (IOException e) {
			return Optional.empty();
		}
	}

	/**
	 * @return the state to share unchanged entries with once its archive reads back sound: the entries are shared
	 *         as they are, so a damaged archive would make the new state damaged too. Its files are read again only
	 *         when one of them is not recorded as read back sound or written by a save as it is now
	 *         ({@link VerifiedFiles}): at EDT's scale reading a 3 GB state again at every save would cost more than
	 *         the save. A damaged one is deleted with the reason (a restore would refuse it anyway) and the next
	 *         candidate is tried.
	 */
	private Optional<StateInfo> soundPreviousState(StateStore store) {
		Optional<StateInfo> candidate = previousState(store);
		VerifiedFiles verified = store.verifiedFiles();
		while (candidate.isPresent()) {
			StateInfo state = candidate.get();
			try {
				List<Path> files = Archives.files(state.archive());
				if (!verified.containsAll(files)) {
					service.verify(state, null);
					verified.addAll(files);
				}
				return candidate;
			} catch (IOException | RuntimeException damage) {
				try {
					for (StateInfo removed : store.remove(List.of(state))) {
						String reason = NLS.bind(Messages.Service_damagedDeleted,
								new Object[] { removed.gitDir(), GitFacts.shortId(removed.commitId()), removed.archive(),
										String.valueOf(damage.getMessage()) });
						Log.warning(reason);
						events.deletedBecause(removed, reason);
					}
				} catch (IOException e) {
					return Optional.empty(); // a full save then, from the files alone
				}
			}
			candidate = previousState(store);
		}
		return Optional.empty();
	}

	private Written write(Path archive, SubMonitor monitor) throws IOException, CoreException {
		List<IProject> projects = split.complete();
		StateStore store = service.store();
		ArchiveProgress progress = new ArchiveProgress();
		WriteOptions options = WriteOptions.defaults()
				.withLevel(StorePreferences.intValue(BranchstatePreferences.COMPRESSION_LEVEL,
						StorePreferences.DEFAULT_LEVEL))
				.withProgress(progress).withCancel(monitor::isCanceled);
		int workers = StorePreferences.intValue(BranchstatePreferences.WORKER_THREADS, 0);
		if (workers > 0) {
			options = options.withWorkers(workers);
		}
		Optional<StateInfo> previous = soundPreviousState(store);
		if (previous.isPresent()) {
			// differential save: unchanged files are shared with the previous state's archive (or copied compressed
			// from it, when its chain is long or mostly replaced entries)
			options = options.withPrevious(previous.get().archive()).withSharing(true);
		}
		MultiStatus problems = new MultiStatus(StateService.class, 0,
				NLS.bind(Messages.Service_savedPartly, dir, GitFacts.shortId(commit)));
		List<StateLayout.Part> parts = new ArrayList<>();
		BuiltAgainst builtAgainst = new BuiltAgainst();
		Map<String, Integer> versions = new TreeMap<>();
		List<Descriptor> descriptors = contributors.descriptors();
		SubMonitor loop = monitor.split(70).setWorkRemaining(Math.max(1, descriptors.size() * projects.size()));
		WriteResult result;
		try (ArchiveWriter writer = Archives.newWriter(archive, options)) {
			int applicable = 0;
			for (Descriptor d : descriptors) {
				Optional<IStateContributor> c = d.contributor();
				if (c.isEmpty()) {
					loop.worked(projects.size());
					continue;
				}
				IStateContributor contributor = c.get();
				Outcome<Integer> version = ContributorRegistry.safely(() -> Integer.valueOf(contributor.version()));
				if (!version.ok()) {
					problems.add(ContributorRegistry.statusOf(d.id(), version.failure()));
					loop.worked(projects.size());
					continue;
				}
				for (IProject project : projects) {
					monitor.checkCanceled();
					Outcome<Boolean> applies = ContributorRegistry
							.safely(() -> Boolean.valueOf(contributor.appliesTo(project)));
					if (!applies.ok() || !Boolean.TRUE.equals(applies.value())) {
						if (!applies.ok()) {
							problems.add(ContributorRegistry.statusOf(
									NLS.bind(Messages.Service_contributorSaveFailed, d.id(), project.getName()),
									applies.failure()));
						}
						loop.worked(1);
						continue;
					}
					applicable++;
					StateLayout.Part part = new StateLayout.Part(d.id(), version.value().intValue(),
							project.getName());
					SaveContext context = new SaveContext(writer, part.prefix(), project, commit);
					SubMonitor step = loop.split(1);
					Outcome<Object> saved = ContributorRegistry.safely(() -> {
						contributor.save(context, step);
						return null;
					});
					if (context.writerFailure() != null) {
						throw context.writerFailure();
					}
					monitor.checkCanceled();
					if (saved.ok()) {
						parts.add(part);
						builtAgainst.record(part, contributor, project);
						versions.put(d.id(), version.value());
					} else {
						problems.add(ContributorRegistry.statusOf(
								NLS.bind(Messages.Service_contributorSaveFailed, d.id(), project.getName()),
								saved.failure()));
					}
				}
			}
			if (parts.isEmpty() && applicable > 0) {
				throw new CoreException(problems);
			}
			FileTime time = FileTime.from(Instant.now());
			writer.addBytes(StateLayout.PARTS, StateLayout.encode(parts), ArchiveWriter.DEFAULT_FILE_MODE, time);
			writer.addBytes(BuiltAgainst.ENTRY, builtAgainst.encode(), ArchiveWriter.DEFAULT_FILE_MODE, time);
			writer.addBytes(StateLayout.PROPERTIES, properties(projects), ArchiveWriter.DEFAULT_FILE_MODE, time);
			writer.addBytes(StateLayout.DIRTY, ChangedPaths.encode(ChangedPaths.contentIds(repository, dirty)),
					ArchiveWriter.DEFAULT_FILE_MODE, time);
			monitor.split(15);
			result = writer.commit();
		} catch (ArchiveCanceledException e) {
			throw new OperationCanceledException(e.getMessage());
		}
		// its own file written from the files themselves, the files it continues read back sound before sharing
		store.verifiedFiles().addAll(Archives.files(archive));
		Instant now = Instant.now();
		List<String> branches = new ArrayList<>();
		if (branch != null) {
			branches.add(branch);
		}
		for (String b : GitFacts.branchesAt(repository, commit)) {
			if (!branches.contains(b)) {
				branches.add(b);
			}
		}
		return new Written(new StateInfo(dir, commit, List.copyOf(branches), archive, now, now, result.archiveSize(),
				result.uncompressedBytes(), Map.copyOf(versions), List.copyOf(dirty)), problems, result.entries());
	}

	private byte[] properties(List<IProject> projects) {
		StringBuilder b = new StringBuilder();
		b.append("commit=").append(commit).append('\n'); //$NON-NLS-1$
		b.append("branch=").append(branch == null ? "" : branch).append('\n'); //$NON-NLS-1$ //$NON-NLS-2$
		b.append("created=").append(Instant.now()).append('\n'); //$NON-NLS-1$
		b.append("projects=").append(String.join(",", projects.stream().map(IProject::getName).toList())) //$NON-NLS-1$ //$NON-NLS-2$
				.append('\n');
		b.append("dirty=").append(dirty.size()).append('\n'); //$NON-NLS-1$
		return b.toString().getBytes(StandardCharsets.UTF_8);
	}

	// ----------------------------------------------------------------------------------------------- finish

	/** Tells the listeners what was saved and what the store let go; @return the state as the catalog holds it */
	private StateInfo finish(Written written, StateStore.AddResult added) {
		StateInfo info = written.info();
		MultiStatus problems = written.problems();
		String message = problems.isOK()
				? NLS.bind(Messages.Service_saved,
						new Object[] { dir, GitFacts.shortId(commit), Long.valueOf(written.files()) })
				: NLS.bind(Messages.Service_savedPartly, dir, GitFacts.shortId(commit));
		if (!split.leftOut().isEmpty()) {
			message += ' ' + NLS.bind(Messages.Service_leftOut, split.describeLeftOut());
		}
		IStatus status = !problems.isOK() ? problems
				: split.leftOut().isEmpty() ? Status.OK_STATUS : Status.info(message);
		events.fire(new StateEvent(StateEvent.Kind.SAVED, dir, commit, branch, message, status, written.files(),
				info.uncompressedSize(), 0, StateEvents.elapsed(start)));
		added.retired().forEach(state -> events.deleted(state, Messages.Service_retired));
		added.evicted().forEach(state -> events.deleted(state, Messages.Service_evicted));
		return added.added();
	}

	private CoreException failed(String reason, Throwable e) {
		return events.failed(Messages.Service_saveFailed, dir, commit, branch, reason, e, start);
	}
}
