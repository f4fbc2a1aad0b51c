package dev.branchstate.core.internal.service;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import org.eclipse.core.resources.IBuildConfiguration;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResourceChangeEvent;
import org.eclipse.core.resources.IResourceChangeListener;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.IncrementalProjectBuilder;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.ListenerList;
import org.eclipse.core.runtime.MultiStatus;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.Platform;
import org.eclipse.core.runtime.SafeRunner;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.core.runtime.jobs.ISchedulingRule;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.core.runtime.jobs.MultiRule;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.osgi.util.NLS;
import org.osgi.framework.FrameworkUtil;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import dev.branchstate.archive.ArchiveCanceledException;
import dev.branchstate.archive.ArchiveProgress;
import dev.branchstate.archive.ArchiveReader;
import dev.branchstate.archive.ExtractOptions;
import dev.branchstate.archive.ArchiveWriter;
import dev.branchstate.archive.Archives;
import dev.branchstate.archive.WriteOptions;
import dev.branchstate.archive.WriteResult;
import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.core.IStateContributor;
import dev.branchstate.core.IStateListener;
import dev.branchstate.core.IStateService;
import dev.branchstate.core.RestoreResult;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.Log;
import dev.branchstate.core.internal.Messages;
import dev.branchstate.core.internal.build.BuildManagerAccess;
import dev.branchstate.core.internal.contributors.ContributorRegistry;
import dev.branchstate.core.internal.contributors.ContributorRegistry.Descriptor;
import dev.branchstate.core.internal.contributors.ContributorRegistry.Outcome;
import dev.branchstate.core.internal.contributors.DerivedResourcesContributor;
import dev.branchstate.core.internal.service.RestoreOperation.Selected;
import dev.branchstate.core.internal.store.StateStore;
import dev.branchstate.core.internal.store.VerifiedFiles;

/**
 * The state service. Saves and restores are serialized per repository; the catalog stays readable meanwhile.
 * A failure is told once, as one FAILED event and the thrown {@link CoreException}; it is not logged here: the
 * caller that handles it logs it (a Job returns its status, which the job framework logs).
 */
@Component(service = IStateService.class)
public final class StateService implements IStateService {

	/** Default disk budget of the store in MiB. */
	public static final int DEFAULT_BUDGET_MB = 10240;
	/** Default zstd level. */
	public static final int DEFAULT_LEVEL = 3;

	private final IWorkspace workspace;
	private final ContributorRegistry contributors;
	private final RemoteService remote = new RemoteService(this);
	private final RestoreJournal journal;
	/** Recovers unfinished restores before any build (a build that starts before the recovery job ran). */
	private final IResourceChangeListener recoveryBeforeBuild = event -> recoverInterruptedRestores(null);
	private final ListenerList<IStateListener> listeners = new ListenerList<>();
	private final Map<File, ReentrantLock> repositoryLocks = new ConcurrentHashMap<>();
	private StateStore store;
	private Path storeOverride;

	@Activate
	public StateService(@Reference IWorkspace workspace) {
		this.workspace = workspace;
		this.contributors = new ContributorRegistry(Platform.getExtensionRegistry());
		this.journal = new RestoreJournal(
				Platform.getStateLocation(FrameworkUtil.getBundle(StateService.class)).append("restores").toPath()); //$NON-NLS-1$
		// what a killed or crashed session left goes at start-up: a restore's half-written output before any build,
		// a save's files in the store
		workspace.addResourceChangeListener(recoveryBeforeBuild, IResourceChangeEvent.PRE_BUILD);
		if (journal.pending()) {
			Job recovery = Job.createSystem(Messages.Service_recoveryJob, this::recoverInterruptedRestores);
			recovery.setRule(MultiRule.combine(workspace.getRoot(), workspace.getRuleFactory().buildRule()));
			recovery.schedule();
		}
		Job.createSystem(Messages.Store_cleaningJob, monitor -> {
			try {
				store();
			} catch (CoreException e) {
				Log.log(e.getStatus());
			}
		}).schedule();
		// the compression library's binding, made once per session: made now, not during the first switch
		Job.createSystem(Messages.Service_preparingJob, monitor -> {
			Archives.prepare();
		}).schedule();
	}

	@Deactivate
	void deactivate() {
		workspace.removeResourceChangeListener(recoveryBeforeBuild);
		contributors.dispose();
	}

	/** @return the record of the restores that are writing (internal: tests) */
	public RestoreJournal restoreJournal() {
		return journal;
	}

	/**
	 * Undoes what restores that did not end left (the IDE killed or crashed while one was writing): removes the
	 * derived data of their projects and has their builders build them in full, then deletes their records. Runs in
	 * a job at start-up and, should a build come first, before it (PRE_BUILD); a save of such a project is refused
	 * until then. Costs nothing when no restore is on record.
	 */
	public void recoverInterruptedRestores(IProgressMonitor monitor) {
		if (!journal.pending()) {
			return;
		}
		int mark = journal.mark();
		List<RestoreJournal.Unfinished> unfinished;
		try {
			unfinished = journal.unfinished();
		} catch (IOException e) {
			Log.warning(NLS.bind(Messages.Service_restoreNotRecovered, "?", e.getMessage()), e); //$NON-NLS-1$
			return;
		}
		boolean all = true;
		for (RestoreJournal.Unfinished u : unfinished) {
			List<IProject> projects = u.projects().stream().map(workspace.getRoot()::getProject)
					.filter(IProject::isAccessible).toList();
			String names = String.join(", ", u.projects()); //$NON-NLS-1$
			try {
				if (!projects.isEmpty()) {
					workspace.run(m -> {
						for (IProject project : projects) {
							RestoreOperation.discardDerivedData(project, contributors);
						}
					}, MultiRule.combine(projects.toArray(ISchedulingRule[]::new)), IWorkspace.AVOID_UPDATE, monitor);
				}
				journal.recovered(u);
				Log.warning(NLS.bind(Messages.Service_restoreInterrupted, names));
			} catch (CoreException | IOException | RuntimeException e) {
				all = false; // its record stays for the next session; its projects are not saved meanwhile
				Log.warning(NLS.bind(Messages.Service_restoreNotRecovered, names, u.file()), e);
			}
		}
		if (all) {
			journal.allRecovered(mark);
		}
	}

	/** @return whether a restore of the project did not finish and was not yet recovered */
	private boolean interrupted(IProject project) {
		try {
			return journal.holds(project);
		} catch (IOException e) {
			return true;
		}
	}

	/** @return remote states for the workspace's repositories */
	public RemoteService remote() {
		return remote;
	}

	/** @return the contributor registry (internal: tests and the headless application) */
	public ContributorRegistry contributors() {
		return contributors;
	}

	/** Uses the given store folder instead of the preference (internal: tests); {@code null} to go back. */
	public synchronized void setStoreLocation(Path directory) {
		storeOverride = directory;
		store = null;
	}

	/** @return the state store at the location the preference names (the bundle's state location by default) */
	public synchronized StateStore store() throws CoreException {
		Path location = storeOverride != null ? storeOverride : preferredLocation();
		if (store == null || !store.directory().equals(location.toAbsolutePath().normalize())) {
			try {
				store = new StateStore(location);
			} catch (IOException e) {
				throw new CoreException(Status.error(NLS.bind(Messages.Store_cannotWrite, location), e));
			}
			cleanLeftovers(store);
		}
		return store;
	}

	/**
	 * Deletes what saves of a previous session left in the store when the IDE was killed or crashed: the files of
	 * archive writers that are gone, and archives no catalog entry names. Runs once per store and session, when the
	 * store is first opened (saves of other IDEs sharing the store are kept: see {@link StateStore#cleanOrphans}).
	 */
	private static void cleanLeftovers(StateStore store) {
		try {
			for (Path file : store.cleanOrphans()) {
				Log.info(NLS.bind(Messages.Store_leftoverDeleted, file));
			}
		} catch (IOException | RuntimeException e) {
			Log.warning(NLS.bind(Messages.Store_leftoversNotDeleted, store.directory()), e);
		}
	}

	private static Path preferredLocation() {
		String value = Platform.getPreferencesService().getString(BranchstatePreferences.NODE,
				BranchstatePreferences.STORE_LOCATION, "", null); //$NON-NLS-1$
		if (!value.isBlank()) {
			return Path.of(value.trim());
		}
		return Platform.getStateLocation(FrameworkUtil.getBundle(StateService.class)).append("store").toPath(); //$NON-NLS-1$
	}

	/** @return the disk budget in bytes */
	public static long budgetBytes() {
		long mb = Platform.getPreferencesService().getInt(BranchstatePreferences.NODE,
				BranchstatePreferences.DISK_BUDGET_MB, DEFAULT_BUDGET_MB, null);
		return mb * 1024 * 1024;
	}

	private static int intPreference(String key, int defaultValue) {
		return Platform.getPreferencesService().getInt(BranchstatePreferences.NODE, key, defaultValue, null);
	}

	// ---------------------------------------------------------------------------------------------- queries

	@Override
	public Optional<File> repositoryOf(IProject project) {
		IPath location = project.getLocation();
		if (location == null) {
			return Optional.empty();
		}
		FileRepositoryBuilder builder = new FileRepositoryBuilder().findGitDir(location.toFile());
		return Optional.ofNullable(builder.getGitDir()).map(StateStore::canonical);
	}

	/** @return the open projects of the workspace that belong to the repository (not to a nested one) */
	public List<IProject> projectsOf(File gitDir) {
		File key = StateStore.canonical(gitDir);
		List<IProject> result = new ArrayList<>();
		for (IProject p : workspace.getRoot().getProjects()) {
			if (p.isOpen() && repositoryOf(p).filter(key::equals).isPresent()) {
				result.add(p);
			}
		}
		return result;
	}

	@Override
	public List<StateInfo> states(File gitDir) {
		try {
			return store().states(gitDir);
		} catch (IOException | CoreException e) {
			Log.error(NLS.bind(Messages.Store_catalogUnreadable, gitDir), e);
			return List.of();
		}
	}

	@Override
	public List<StateInfo> allStates() {
		try {
			return store().states();
		} catch (IOException | CoreException e) {
			Log.error(NLS.bind(Messages.Store_catalogUnreadable, ""), e); //$NON-NLS-1$
			return List.of();
		}
	}

	@Override
	public long diskUsage() {
		try {
			return store().totalSize();
		} catch (IOException | CoreException e) {
			return IStateService.super.diskUsage();
		}
	}

	@Override
	public Set<String> remoteStates(File gitDir, IProgressMonitor monitor) throws CoreException {
		File dir = StateStore.canonical(gitDir);
		try {
			if (remote.settings().isEmpty()) {
				return Set.of();
			}
		} catch (IllegalArgumentException e) {
			throw new CoreException(Status.error(e.getMessage(), e));
		}
		try (Repository repository = new FileRepositoryBuilder().setGitDir(dir).setMustExist(true).build()) {
			return remote.publishedCommits(repository, dir);
		} catch (IOException | IllegalArgumentException e) {
			throw new CoreException(Status.error(String.valueOf(e.getMessage()), e));
		}
	}

	@Override
	public void delete(StateInfo state) throws CoreException {
		try {
			for (StateInfo removed : store().remove(List.of(state))) {
				fireDeleted(removed, Messages.Service_deleted);
			}
		} catch (IOException e) {
			throw new CoreException(Status.error(
					NLS.bind(Messages.Service_deleteFailed, state.gitDir(), state.commitId()), e));
		}
	}

	@Override
	public void addStateListener(IStateListener listener) {
		listeners.add(listener);
	}

	@Override
	public void removeStateListener(IStateListener listener) {
		listeners.remove(listener);
	}

	/** Tells the listeners that a state is gone; {@code message} binds the repository and the short commit id. */
	private void fireDeleted(StateInfo state, String message) {
		fireDeletedBecause(state, NLS.bind(message, state.gitDir(), shortId(state.commitId())));
	}

	private void fireDeletedBecause(StateInfo state, String text) {
		String branch = state.branches().isEmpty() ? null : state.branches().get(0);
		fire(new StateEvent(StateEvent.Kind.DELETED, state.gitDir(), state.commitId(), branch, text,
				Status.OK_STATUS, 0, 0, 0, Duration.ZERO));
	}

	private void fire(StateEvent event) {
		for (IStateListener l : listeners) {
			SafeRunner.run(() -> l.stateChanged(event));
		}
	}

	// ------------------------------------------------------------------------------------------------- save

	@Override
	public StateInfo save(File gitDir, IProgressMonitor monitor) throws CoreException {
		return save(gitDir, null, null, true, monitor);
	}

	@Override
	public StateInfo save(File gitDir, String commitId, String branch, IProgressMonitor monitor)
			throws CoreException {
		return save(gitDir, commitId, branch, false, monitor);
	}

	@Override
	public void fireEvent(StateEvent event) {
		fire(event);
	}

	private StateInfo save(File gitDir, String commitId, String branchName, boolean atHead, IProgressMonitor monitor)
			throws CoreException {
		if (!atHead && (commitId == null || !ObjectId.isId(commitId))) {
			throw new IllegalArgumentException("not a commit id: " + commitId); //$NON-NLS-1$
		}
		File dir = StateStore.canonical(gitDir);
		SubMonitor sub = SubMonitor.convert(monitor, NLS.bind(Messages.Service_saving, dir), 100);
		long start = System.nanoTime();
		String commit = commitId;
		String branch = branchName;
		ReentrantLock lock = repositoryLocks.computeIfAbsent(dir, d -> new ReentrantLock());
		lock.lock();
		try (Repository repository = open(dir)) {
			if (atHead) {
				ObjectId head = repository.resolve(Constants.HEAD);
				if (head == null) {
					throw new CoreException(Status.error(NLS.bind(Messages.Service_noHead, dir)));
				}
				commit = head.name();
				branch = currentBranch(repository);
			}
			List<IProject> inRepository = projectsOf(dir);
			if (inRepository.isEmpty()) {
				throw skipped(dir, commit, branch, NLS.bind(Messages.Service_noProjects, dir), start);
			}
			CompleteBuilds.Split split = CompleteBuilds.split(inRepository, this::whyIncomplete);
			if (split.complete().isEmpty()) {
				String reason = split.leftOut().values().iterator().next();
				throw skipped(dir, commit, branch, NLS.bind(Messages.Service_notBuilt, dir, reason), start);
			}
			List<IProject> projects = split.complete();
			List<String> dirty = relevant(ChangedPaths.dirty(repository), repository, projects);
			sub.worked(5);
			StateStore store = store();
			Path archive = store.newArchivePath(dir, commit);
			Written written;
			StateStore.AddResult added;
			// the archive's name is held until the catalog names it: a kill in between leaves an archive that the
			// next start deletes (StateStore.cleanOrphans), while a running save's is kept
			try (Closeable hold = Archives.hold(archive)) {
				written = write(dir, repository, commit, branch, archive, projects, dirty, sub.split(90));
				added = store.add(written.info(), commitsInUse(repository), budgetBytes());
			}
			StateInfo info = written.info();
			sub.worked(5);
			MultiStatus problems = written.problems();
			String message = problems.isOK()
					? NLS.bind(Messages.Service_saved, new Object[] { dir, shortId(commit), Long.valueOf(written.files()) })
					: NLS.bind(Messages.Service_savedPartly, dir, shortId(commit));
			if (!split.leftOut().isEmpty()) {
				message += ' ' + NLS.bind(Messages.Service_leftOut, split.describeLeftOut());
			}
			IStatus status = !problems.isOK() ? problems
					: split.leftOut().isEmpty() ? Status.OK_STATUS : Status.info(message);
			fire(new StateEvent(StateEvent.Kind.SAVED, dir, commit, branch, message, status, written.files(),
					info.uncompressedSize(), 0, elapsed(start)));
			added.retired().forEach(state -> fireDeleted(state, Messages.Service_retired));
			added.evicted().forEach(state -> fireDeleted(state, Messages.Service_evicted));
			return added.added();
		} catch (OperationCanceledException e) {
			String message = NLS.bind(Messages.Service_saveCanceled, dir);
			fire(new StateEvent(StateEvent.Kind.SKIPPED, dir, commit, branch, message, Status.CANCEL_STATUS, 0, 0, 0,
					elapsed(start)));
			throw e;
		} catch (CoreException e) {
			if (e.getStatus().getSeverity() == IStatus.INFO) {
				throw e; // skipped, already told
			}
			throw saveFailed(dir, commit, branch, e.getStatus().getMessage(), e, start);
		} catch (IOException | RuntimeException e) {
			throw saveFailed(dir, commit, branch, String.valueOf(e.getMessage()), e, start);
		} finally {
			lock.unlock();
		}
	}

	@Override
	public void awaitBuild(File gitDir, IProgressMonitor monitor) throws CoreException {
		List<IProject> projects = projectsOf(StateStore.canonical(gitDir));
		if (projects.isEmpty()) {
			return;
		}
		if (workspace.isAutoBuilding()) {
			// the auto-build, now (a manual build would make the platform skip the auto-build after the next change);
			// projects never built since Eclipse started (an import, say), or whose builder wants to build them in full
			// (JDT after a build that failed), get a change that starts it
			if (Job.getJobManager().find(ResourcesPlugin.FAMILY_AUTO_BUILD).length == 0) {
				for (IProject project : projects) {
					if (BuildManagerAccess.whyNotBuilt(project).or(() -> contributors.whyNotBuilt(project))
							.isPresent()) {
						project.touch(null); // in the workspace tree only: no file is written
					}
				}
			}
			for (Job job : Job.getJobManager().find(ResourcesPlugin.FAMILY_AUTO_BUILD)) {
				job.wakeUp();
			}
			try {
				Job.getJobManager().join(ResourcesPlugin.FAMILY_AUTO_BUILD, monitor);
			} catch (InterruptedException e) {
				Thread.currentThread().interrupt();
				throw new OperationCanceledException();
			}
			return;
		}
		IBuildConfiguration[] configs = new IBuildConfiguration[projects.size()];
		for (int i = 0; i < configs.length; i++) {
			configs[i] = projects.get(i).getActiveBuildConfig();
		}
		workspace.build(configs, IncrementalProjectBuilder.INCREMENTAL_BUILD, true, monitor);
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
		return BuildManagerAccess.whyNotBuilt(project).or(() -> contributors.whyNotBuilt(project));
	}

	/** Tells the listeners that there was nothing to do, and why; @return the INFO exception to throw */
	private CoreException skipped(File dir, String commit, String branch, String message, long start) {
		fire(new StateEvent(StateEvent.Kind.SKIPPED, dir, commit, branch, message, Status.info(message), 0, 0, 0,
				elapsed(start)));
		return new CoreException(Status.info(message));
	}

	/** @return the state to copy unchanged entries from: the branch's own, else the repository's newest */
	private static Optional<StateInfo> previousState(StateStore store, File dir, String branch) {
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
	private Optional<StateInfo> soundPreviousState(StateStore store, File dir, String branch) {
		Optional<StateInfo> candidate = previousState(store, dir, branch);
		VerifiedFiles verified = store.verifiedFiles();
		while (candidate.isPresent()) {
			StateInfo state = candidate.get();
			try {
				List<Path> files = Archives.files(state.archive());
				if (!verified.containsAll(files)) {
					verify(state, null);
					verified.addAll(files);
				}
				return candidate;
			} catch (IOException | RuntimeException damage) {
				try {
					for (StateInfo removed : store.remove(List.of(state))) {
						String reason = NLS.bind(Messages.Service_damagedDeleted, new Object[] { removed.gitDir(),
								shortId(removed.commitId()), removed.archive(), String.valueOf(damage.getMessage()) });
						Log.warning(reason);
						fireDeletedBecause(removed, reason);
					}
				} catch (IOException e) {
					return Optional.empty(); // a full save then, from the files alone
				}
			}
			candidate = previousState(store, dir, branch);
		}
		return Optional.empty();
	}

	/** What writing a state archive produced: the state, the contributors' failures, the entries written. */
	private record Written(StateInfo info, MultiStatus problems, long files) {
	}

	private Written write(File dir, Repository repository, String commit, String branch, Path archive,
			List<IProject> projects, List<String> dirty, SubMonitor monitor) throws IOException, CoreException {
		StateStore store = store();
		ArchiveProgress progress = new ArchiveProgress();
		WriteOptions options = WriteOptions.defaults()
				.withLevel(intPreference(BranchstatePreferences.COMPRESSION_LEVEL, DEFAULT_LEVEL))
				.withProgress(progress).withCancel(monitor::isCanceled);
		int workers = intPreference(BranchstatePreferences.WORKER_THREADS, 0);
		if (workers > 0) {
			options = options.withWorkers(workers);
		}
		Optional<StateInfo> previous = soundPreviousState(store, dir, branch);
		if (previous.isPresent()) {
			// differential save: unchanged files are shared with the previous state's archive (or copied compressed
			// from it, when its chain is long or mostly replaced entries)
			options = options.withPrevious(previous.get().archive()).withSharing(true);
		}
		MultiStatus problems = new MultiStatus(StateService.class, 0, NLS.bind(Messages.Service_savedPartly, dir,
				shortId(commit)));
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
			writer.addBytes(StateLayout.PROPERTIES, properties(commit, branch, projects, dirty),
					ArchiveWriter.DEFAULT_FILE_MODE, time);
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
		for (String b : branchesAt(repository, commit)) {
			if (!branches.contains(b)) {
				branches.add(b);
			}
		}
		return new Written(new StateInfo(dir, commit, List.copyOf(branches), archive, now, now, result.archiveSize(),
				result.uncompressedBytes(), Map.copyOf(versions), List.copyOf(dirty)), problems, result.entries());
	}

	private static byte[] properties(String commit, String branch, List<IProject> projects, List<String> dirty) {
		StringBuilder b = new StringBuilder();
		b.append("commit=").append(commit).append('\n'); //$NON-NLS-1$
		b.append("branch=").append(branch == null ? "" : branch).append('\n'); //$NON-NLS-1$ //$NON-NLS-2$
		b.append("created=").append(Instant.now()).append('\n'); //$NON-NLS-1$
		b.append("projects=").append(String.join(",", projects.stream().map(IProject::getName).toList())) //$NON-NLS-1$ //$NON-NLS-2$
				.append('\n');
		b.append("dirty=").append(dirty.size()).append('\n'); //$NON-NLS-1$
		return b.toString().getBytes(StandardCharsets.UTF_8);
	}

	private CoreException saveFailed(File dir, String commit, String branch, String reason, Throwable e,
			long start) {
		return failed(Messages.Service_saveFailed, dir, commit, branch, reason, e, start);
	}

	// ---------------------------------------------------------------------------------------------- restore

	@Override
	public RestoreResult restore(File gitDir, String commitId, IProgressMonitor monitor) throws CoreException {
		File dir = StateStore.canonical(gitDir);
		SubMonitor sub = SubMonitor.convert(monitor, NLS.bind(Messages.Service_restoring, dir, shortId(commitId)),
				100);
		long start = System.nanoTime();
		String branch = null;
		ReentrantLock lock = repositoryLocks.computeIfAbsent(dir, d -> new ReentrantLock());
		lock.lock();
		try (Repository repository = open(dir)) {
			branch = currentBranch(repository);
			StateStore store = store();
			Optional<StateInfo> found = store.find(dir, commitId);
			if (found.isEmpty()) {
				throw skipped(dir, commitId, branch, NLS.bind(Messages.Service_noState, dir, shortId(commitId)), start);
			}
			StateInfo state = found.get();
			ObjectId head = repository.resolve(Constants.HEAD);
			String current = head == null ? null : head.name();
			MultiStatus problems = new MultiStatus(StateService.class, 0,
					NLS.bind(Messages.Service_restoredPartly, dir, shortId(commitId)));
			try (ArchiveReader reader = Archives.open(state.archive());
					KnownFiles known = KnownFiles.lastUsed(store.states(dir), state, reader).orElse(null)) {
				List<Selected> selected = select(reader, dir, problems);
				// a project built against other libraries, JDK or target platform than it is now is left to its
				// builders (and what reads it, by the hand-off's rule)
				Map<IProject, String> builtOther = BuiltAgainst.changedSince(reader.entry(BuiltAgainst.ENTRY).isPresent()
						? reader.readAllBytes(BuiltAgainst.ENTRY, 16 << 20)
						: null, selected);
				if (!builtOther.isEmpty()) {
					builtOther.values().forEach(reason -> problems.add(Status.info(reason)));
					selected = selected.stream().filter(s -> !builtOther.containsKey(s.project())).toList();
					if (selected.isEmpty()) {
						throw skipped(dir, commitId, branch, NLS.bind(Messages.Service_notRestoredBuiltAgainst,
								new Object[] { dir, shortId(commitId), String.join("; ", builtOther.values()) }), start); //$NON-NLS-1$
					}
				}
				sub.worked(2);
				long files = selected.stream().map(s -> s.part().prefix()).distinct().mapToLong(reader::fileCount)
						.sum();
				Map<String, String> dirtyAtSave = reader.entry(StateLayout.DIRTY).isPresent()
						? ChangedPaths.decode(reader.readAllBytes(StateLayout.DIRTY, 256 << 20))
						: ChangedPaths.unknownContent(state.dirtyPaths());
				Map<IProject, Set<IPath>> changed = changedPaths(repository, state, dirtyAtSave,
						selected.stream().map(Selected::project).distinct().toList());
				Optional<String> unfollowable = RestoreOperation.unfollowable(changed);
				if (unfollowable.isPresent()) {
					throw skipped(dir, commitId, branch, NLS.bind(Messages.Service_notRestoredGone,
							new Object[] { dir, shortId(commitId), unfollowable.get() }), start);
				}
				// a builder's own state is restored only where it can be handed to the builder with its output
				Set<IProject> handOff = RestoreOperation.handOffCandidates(selected, changed);
				List<Selected> parts = selected.stream()
						.filter(s -> s.builders().isEmpty() || handOff.contains(s.project())).toList();
				sub.worked(3);
				RestoreOperation operation = new RestoreOperation(workspace, contributors, journal, reader, state, current,
						changed, problems, intPreference(BranchstatePreferences.WORKER_THREADS, 0), sub::isCanceled,
						known);
				ISchedulingRule rule = MultiRule.combine(
						parts.stream().map(Selected::project).distinct().toArray(ISchedulingRule[]::new));
				try {
					// (the plan and the check of what will be read run under the rule too: nothing may write the
					// planned folders before the restore does)
					workspace.run(m -> operation.run(parts, SubMonitor.convert(m)), rule, IWorkspace.AVOID_UPDATE,
							sub.split(90));
				} catch (OperationCanceledException e) {
					operation.afterCancel();
					throw e;
				}
				if (!parts.isEmpty() && operation.succeeded == 0) {
					throw new CoreException(problems);
				}
				store.touch(state, Instant.now());
				sub.worked(5);
				long written = operation.contexts.stream().mapToLong(c -> c.written.get()).sum();
				long deleted = operation.contexts.stream().mapToLong(c -> c.deleted.get()).sum();
				long touched = operation.touched;
				Duration duration = elapsed(start);
				String restored = NLS.bind(Messages.Service_restored, new Object[] { dir, shortId(commitId),
						Long.valueOf(written), Long.valueOf(touched) });
				// what was left to the builders (INFO) is said after the figures; a failure (WARNING) says itself
				String message = problems.isOK() ? restored
						: problems.getSeverity() == IStatus.INFO ? restored + "; " + String.join("; ", //$NON-NLS-1$ //$NON-NLS-2$
								Arrays.stream(problems.getChildren()).map(IStatus::getMessage).toList())
								: problems.getMessage();
				fire(new StateEvent(StateEvent.Kind.RESTORED, dir, commitId, branch, message,
						problems.isOK() ? Status.OK_STATUS : problems, files, state.uncompressedSize(), touched,
						duration));
				return new RestoreResult(state, files, written, deleted, touched, duration);
			}
		} catch (OperationCanceledException e) {
			throw restoreCanceled(dir, commitId, branch, e, start);
		} catch (CoreException e) {
			if (e.getStatus().getSeverity() == IStatus.INFO) {
				throw e;
			}
			if (e.getStatus().getSeverity() == IStatus.CANCEL) {
				throw restoreCanceled(dir, commitId, branch, new OperationCanceledException(), start);
			}
			throw restoreFailed(dir, commitId, branch, e.getStatus().getMessage(), e, start);
		} catch (IOException | RuntimeException e) {
			throw restoreFailed(dir, commitId, branch, String.valueOf(e.getMessage()), e, start);
		} finally {
			lock.unlock();
		}
	}

	private List<Selected> select(ArchiveReader reader, File dir, MultiStatus problems) throws IOException {
		List<StateLayout.Part> parts = StateLayout.decode(reader.readAllBytes(StateLayout.PARTS, 16 << 20));
		List<IProject> projects = projectsOf(dir);
		List<Selected> result = new ArrayList<>();
		for (Descriptor d : contributors.descriptors()) { // priority order
			for (StateLayout.Part part : parts) {
				if (!part.contributorId().equals(d.id())) {
					continue;
				}
				IProject project = projects.stream().filter(p -> p.getName().equals(part.project())).findFirst()
						.orElse(null);
				if (project == null) {
					continue; // no longer in the workspace
				}
				Optional<IStateContributor> c = d.contributor();
				if (c.isEmpty()) {
					continue;
				}
				Outcome<Boolean> readable = ContributorRegistry
						.safely(() -> Boolean.valueOf(c.get().canRead(part.version())));
				Outcome<Set<String>> builders = ContributorRegistry.safely(() -> Set.copyOf(c.get().builderStates()));
				if (readable.ok() && Boolean.TRUE.equals(readable.value()) && builders.ok()) {
					result.add(new Selected(part, c.get(), project, builders.value()));
				} else {
					problems.add(Status.info(NLS.bind(Messages.Service_contributorVersion, d.id(),
							Integer.valueOf(part.version()))));
				}
			}
		}
		for (StateLayout.Part part : parts) {
			if (contributors.find(part.contributorId()).isEmpty()) {
				problems.add(Status.info(NLS.bind(Messages.Service_contributorMissing, part.contributorId())));
			}
		}
		return result;
	}

	/** @return extraction settings of the preferences (worker threads), cancelled through the monitor */
	static ExtractOptions extractOptions(IProgressMonitor monitor) {
		ExtractOptions options = ExtractOptions.defaults().withCancel(monitor::isCanceled);
		int workers = intPreference(BranchstatePreferences.WORKER_THREADS, 0);
		return workers > 0 ? options.withWorkers(workers) : options;
	}

	private Map<IProject, Set<IPath>> changedPaths(Repository repository, StateInfo state,
			Map<String, String> dirtyAtSave, List<IProject> projects) throws CoreException {
		Set<String> changed;
		try {
			changed = ChangedPaths.compute(repository, state.commitId(), dirtyAtSave);
		} catch (IOException | RuntimeException e) {
			throw new CoreException(Status.error(NLS.bind(Messages.Service_changedPathsFailed, state.commitId()), e));
		}
		Map<IProject, Set<IPath>> result = new LinkedHashMap<>();
		Map<IProject, String> prefixes = prefixes(repository, projects);
		Function<IProject, List<IPath>> named = namedFolders();
		for (String path : changed) {
			for (Map.Entry<IProject, String> p : prefixes.entrySet()) {
				String prefix = p.getValue();
				if (prefix.isEmpty() || path.startsWith(prefix + '/')) {
					IPath relative = IPath.fromPortableString(prefix.isEmpty() ? path : path.substring(prefix.length() + 1));
					if (!DerivedResourcesContributor.isDerived(p.getKey(), relative, named.apply(p.getKey()))) {
						result.computeIfAbsent(p.getKey(), k -> new TreeSet<>(
								(a, b) -> a.toPortableString().compareTo(b.toPortableString()))).add(relative);
					}
				}
			}
		}
		return result;
	}

	/** @return the folders contributors name as derived, per project, each project's asked once */
	private Function<IProject, List<IPath>> namedFolders() {
		Map<IProject, List<IPath>> cache = new HashMap<>();
		return project -> cache.computeIfAbsent(project, contributors::derivedFolders);
	}

	/**
	 * @return the repository-relative location of each project ("" for a project at the work tree root); a project
	 *         outside the work tree, or whose folder is gone, is not in the map
	 */
	public static Map<IProject, String> prefixes(Repository repository, List<IProject> projects) {
		Map<IProject, String> result = new HashMap<>();
		Path workTree;
		try {
			workTree = repository.getWorkTree().toPath().toRealPath();
		} catch (IOException e) {
			workTree = repository.getWorkTree().toPath().toAbsolutePath();
		}
		for (IProject p : projects) {
			try {
				Path location = p.getLocation().toFile().toPath().toRealPath();
				if (location.startsWith(workTree)) {
					result.put(p, workTree.relativize(location).toString().replace(File.separatorChar, '/'));
				}
			} catch (IOException e) {
				// a project whose folder is gone has nothing to rebuild
			}
		}
		return result;
	}

	/** @return the dirty paths that lie in a project and are not derived data */
	private List<String> relevant(Set<String> paths, Repository repository, List<IProject> projects) {
		Map<IProject, String> prefixes = prefixes(repository, projects);
		Function<IProject, List<IPath>> named = namedFolders();
		List<String> result = new ArrayList<>();
		for (String path : paths) {
			for (Map.Entry<IProject, String> p : prefixes.entrySet()) {
				String prefix = p.getValue();
				if (prefix.isEmpty() || path.startsWith(prefix + '/')) {
					IPath relative = IPath.fromPortableString(prefix.isEmpty() ? path : path.substring(prefix.length() + 1));
					if (!DerivedResourcesContributor.isDerived(p.getKey(), relative, named.apply(p.getKey()))) {
						result.add(path);
						break;
					}
				}
			}
		}
		return result;
	}

	private OperationCanceledException restoreCanceled(File dir, String commit, String branch,
			OperationCanceledException e, long start) {
		String message = NLS.bind(Messages.Service_restoreCanceled, dir);
		fire(new StateEvent(StateEvent.Kind.SKIPPED, dir, commit, branch, message, Status.CANCEL_STATUS, 0, 0, 0,
				elapsed(start)));
		return e;
	}

	private CoreException restoreFailed(File dir, String commit, String branch, String reason, Throwable e,
			long start) {
		return failed(Messages.Service_restoreFailed, dir, commit, branch, reason, e, start);
	}

	/** Tells the listeners of a failure once and returns the exception to throw (the caller logs it). */
	private CoreException failed(String template, File dir, String commit, String branch, String reason, Throwable e,
			long start) {
		String message = NLS.bind(template, new Object[] { dir, shortId(commit), reason });
		IStatus status = failure(message, e);
		fire(new StateEvent(StateEvent.Kind.FAILED, dir, commit, branch, message, status, 0, 0, 0,
				elapsed(start)));
		return new CoreException(status);
	}

	// ---------------------------------------------------------------------------------------------- helpers

	/** @return an ERROR status for a failed operation, with the contributors' failures as children if any */
	private static IStatus failure(String message, Throwable e) {
		if (e instanceof CoreException ce && ce.getStatus() instanceof MultiStatus ms && ms.getChildren().length > 0) {
			MultiStatus status = new MultiStatus(StateService.class, 0, message);
			status.add(Status.error(message, e));
			for (IStatus child : ms.getChildren()) {
				status.add(child);
			}
			return status;
		}
		return Status.error(message, e);
	}

	/** Reads every entry of a stored state (sizes and CRC-32 checked). @throws IOException for a damaged one */
	public void verify(StateInfo state, IProgressMonitor monitor) throws IOException {
		SubMonitor sub = SubMonitor.convert(monitor, 1);
		try (ArchiveReader reader = Archives.open(state.archive())) {
			StateLayout.decode(reader.readAllBytes(StateLayout.PARTS, 16 << 20));
			reader.verify(List.of(""), extractOptions(sub)); //$NON-NLS-1$
		}
	}

	static Repository open(File gitDir) throws IOException {
		if (!Files.isDirectory(gitDir.toPath())) {
			throw new IOException(NLS.bind(Messages.Service_noRepository, gitDir));
		}
		return new FileRepositoryBuilder().setGitDir(gitDir).setMustExist(true).build();
	}

	private static String currentBranch(Repository repository) throws IOException {
		String full = repository.getFullBranch();
		return full != null && full.startsWith(Constants.R_HEADS) ? Repository.shortenRefName(full) : null;
	}

	private static List<String> branchesAt(Repository repository, String commit) throws IOException {
		List<String> result = new ArrayList<>();
		for (Ref ref : repository.getRefDatabase().getRefsByPrefix(Constants.R_HEADS)) {
			if (ref.getObjectId() != null && ref.getObjectId().name().equals(commit)) {
				result.add(Repository.shortenRefName(ref.getName()));
			}
		}
		return result;
	}

	/** @return the commits that a local branch or HEAD points at now */
	static Set<String> commitsInUse(Repository repository) throws IOException {
		Set<String> result = new HashSet<>();
		for (Ref ref : repository.getRefDatabase().getRefsByPrefix(Constants.R_HEADS)) {
			if (ref.getObjectId() != null) {
				result.add(ref.getObjectId().name());
			}
		}
		ObjectId head = repository.resolve(Constants.HEAD);
		if (head != null) {
			result.add(head.name());
		}
		return result;
	}

	private static String shortId(String commit) {
		return commit == null ? "?" : commit.substring(0, Math.min(10, commit.length())); //$NON-NLS-1$
	}

	private static Duration elapsed(long start) {
		return Duration.ofNanos(System.nanoTime() - start);
	}
}
