package dev.branchstate.core.internal.switching;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResourceChangeEvent;
import org.eclipse.core.resources.IResourceChangeListener;
import org.eclipse.core.resources.IResourceDelta;
import org.eclipse.core.resources.ISaveParticipant;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.IncrementalProjectBuilder;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.Platform;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.core.runtime.jobs.ISchedulingRule;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.jgit.events.ListenerHandle;
import org.eclipse.jgit.events.RefsChangedEvent;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.osgi.framework.FrameworkUtil;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import dev.branchstate.core.IStateListener;
import dev.branchstate.core.IStateService;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateEvent.Kind;
import dev.branchstate.core.internal.Laps;
import dev.branchstate.core.internal.LockOrder;
import dev.branchstate.core.internal.Log;
import dev.branchstate.core.internal.Messages;
import dev.branchstate.core.internal.service.StateService;

/**
 * Switch detection and the gate (steps 1 and 2 of the switch protocol) for every Git repository that holds open
 * projects of the workspace.
 * <p>
 * Detection: a JGit {@link RefsChangedEvent} listener on the global listener list (checkouts and resets made with
 * JGit inside Eclipse), a {@link HeadWatcher} on each repository's HEAD (a {@code git checkout} in a terminal), a
 * check in a PRE_BUILD listener before every build, and at start-up a comparison with the last handled HEAD kept in
 * the state location (a HEAD moved while Eclipse was closed). Listeners do no I/O: they schedule the repository's
 * {@link SwitchJob}.
 * <p>
 * Gate: the switch job's rule contains the workspace root and the build rule, so a build waits while a switch is
 * handled; a build that starts before the job got its rule handles the switch itself, synchronously, in the PRE_BUILD
 * listener, which runs in the build's thread before any builder and may modify the workspace. Both paths take the
 * repository's lock, after the rule, so a switch is handled once.
 * <p>
 * Also saves the state of every repository at a full workspace save (shutdown), as a save participant.
 */
@Component(service = SwitchManager.class, immediate = true)
public final class SwitchManager implements IResourceChangeListener, ISaveParticipant {

	/** Job family of the switch jobs and the tracking job: join it to wait until pending switches are handled. */
	public static final Object FAMILY = SwitchManager.class.getName();

	private static final String SAVE_PARTICIPANT = "dev.branchstate.core.switching"; //$NON-NLS-1$
	private static final String HEADS_FILE = "switching/heads.properties"; //$NON-NLS-1$
	private static final String HEADLESS_APPLICATION = "dev.branchstate.core.app"; //$NON-NLS-1$

	private final IStateService states;
	private final IWorkspace workspace;
	private final SwitchProtocol protocol;
	private final Path headsFile;
	private final IStateListener stateListener;
	private final ListenerHandle refsListener;
	private final HeadWatcher watcher;
	private final Job trackJob;
	/** Key (several per repository: as named, canonical) → repository. */
	private final Map<String, TrackedRepository> repositories = new ConcurrentHashMap<>();
	private final Object trackLock = new Object();
	private HandledHeads heads;
	private volatile boolean trackingStale = true;
	private volatile boolean closed;
	private final BuildChanges buildChanges = new BuildChanges();

	@Activate
	public SwitchManager(@Reference IStateService states, @Reference IWorkspace workspace) {
		this(states, workspace, defaultHeadsFile());
	}

	/**
	 * @param headsFile where the last handled HEADs are kept, {@code null} to keep them in memory only
	 */
	SwitchManager(IStateService states, IWorkspace workspace, Path headsFile) {
		this.states = states;
		this.workspace = workspace;
		this.headsFile = headsFile;
		this.protocol = new SwitchProtocol(states);
		this.stateListener = this::stateChanged;
		states.addStateListener(stateListener);
		this.trackJob = Job.createSystem(Messages.Switch_trackJobName, monitor -> {
			if (!closed) {
				reconcile();
			}
		});
		HeadWatcher headWatcher = null;
		try {
			headWatcher = new HeadWatcher(this::headChanged, this::checkAll);
		} catch (IOException e) {
			Log.warning(Messages.bind(Messages.Switch_watchFailed, "*"), e); //$NON-NLS-1$
		}
		this.watcher = headWatcher;
		this.refsListener = Repository.getGlobalListenerList().addRefsChangedListener(this::refsChanged);
		workspace.addResourceChangeListener(this,
				IResourceChangeEvent.POST_CHANGE | IResourceChangeEvent.PRE_BUILD | IResourceChangeEvent.POST_BUILD
						| IResourceChangeEvent.PRE_REFRESH);
		try {
			workspace.addSaveParticipant(SAVE_PARTICIPANT, this);
		} catch (CoreException e) {
			Log.log(e.getStatus());
		}
		scheduleTracking();
	}

	private static Path defaultHeadsFile() {
		return Platform.getStateLocation(FrameworkUtil.getBundle(SwitchManager.class)).append(HEADS_FILE).toPath();
	}

	/** Stops detection; a running switch is cancelled (and left as the protocol's cancel leaves it). */
	@Deactivate
	public void close() {
		closed = true;
		refsListener.remove();
		workspace.removeResourceChangeListener(this);
		workspace.removeSaveParticipant(SAVE_PARTICIPANT);
		states.removeStateListener(stateListener);
		if (watcher != null) {
			watcher.close();
		}
		trackJob.cancel();
		for (TrackedRepository repository : distinctRepositories()) {
			repository.saveAhead.cancel();
			repository.job.cancel();
			try {
				repository.job.join(10_000, null);
			} catch (InterruptedException e) {
				Thread.currentThread().interrupt();
			}
			release(repository);
		}
		repositories.clear();
	}

	/** Told every event of the state service: no blocking, no I/O beyond the small file of handled HEADs. */
	private void stateChanged(StateEvent event) {
		if (event.gitDir() == null || event.commitId() == null) {
			return;
		}
		TrackedRepository repository = repositories.get(key(event.gitDir()));
		if (repository == null) {
			return;
		}
		if (event.kind() == Kind.SAVED) {
			repository.disk.savedBySomeone(event.commitId());
			savedAtHead(repository, event.commitId());
			repository.saveAhead.saved(event.commitId(), event.status() == null || event.status().isOK());
		} else if (event.kind() == Kind.RESTORED) {
			repository.saveAhead.restored(event.commitId());
		}
	}

	/**
	 * A state saved for the commit checked out (the Save State command, the headless save) is what the derived data
	 * on disk is now: the next switch must neither save it again nor take the disk for an older state. Skipped while
	 * the protocol runs for the repository: it keeps these fields itself.
	 */
	private void savedAtHead(TrackedRepository repository, String commitId) {
		if (!repository.lock.tryLock()) {
			return;
		}
		try {
			repository.disk.savedAtHead(commitId);
			remember(repository);
		} finally {
			repository.lock.unlock();
		}
	}

	/** @return the rule of the switch and save-ahead jobs: the workspace's ({@link LockOrder}), no build can start */
	ISchedulingRule switchRule() {
		return LockOrder.workspaceRule(workspace);
	}

	/** @return the key under which a repository is followed (its Git directory's normalized absolute path) */
	public static String key(File gitDir) {
		return gitDir.getAbsoluteFile().toPath().normalize().toString();
	}

	/** @return the Git directories of the repositories followed now */
	public List<File> repositories() {
		return distinctRepositories().stream().map(r -> r.gitDir).toList();
	}

	/** @return the Git directory, as followed, of the repository at {@code gitDir}, if it holds open projects */
	public Optional<File> repository(File gitDir) {
		return Optional.ofNullable(repositories.get(key(gitDir))).map(r -> r.gitDir);
	}

	/** Finds the repositories of the workspace's projects again, in this thread. */
	public void track() {
		reconcile();
	}

	/**
	 * Schedules a check of the repository's HEAD (as if an event had reported a move).
	 *
	 * @return whether the repository is followed
	 */
	public boolean requestCheck(File gitDir) {
		TrackedRepository repository = repositories.get(key(gitDir));
		if (repository == null) {
			return false;
		}
		repository.job.schedule();
		return true;
	}

	/**
	 * Waits until the tracking of the workspace's repositories, scheduled at start-up and whenever projects change,
	 * has run: {@link #headHandled} knows the repository of every project then (a command sent right after an IDE's
	 * start or an import would otherwise find none).
	 *
	 * @return whether it ran within the timeout
	 */
	public boolean awaitTracking(Duration timeout) throws InterruptedException {
		return trackJob.join(timeout.toMillis(), null);
	}

	/**
	 * Whether the repository's HEAD, as it is now, has been handled: no switch is pending for it. Waits while a switch
	 * of the repository runs (its lock). Schedules nothing: a move of HEAD is found by the detection alone.
	 *
	 * @return empty when the repository is not followed or its HEAD cannot be read
	 */
	public Optional<Boolean> headHandled(File gitDir) {
		TrackedRepository repository = repositories.get(key(gitDir));
		if (repository == null) {
			return Optional.empty();
		}
		repository.lock.lock();
		try {
			Head current = repository.closed ? null : Head.read(repository.git);
			return current == null ? Optional.empty() : Optional.of(Boolean.valueOf(repository.disk.isHandled(current)));
		} catch (IOException e) {
			return Optional.empty();
		} finally {
			repository.lock.unlock();
		}
	}

	private Set<TrackedRepository> distinctRepositories() {
		return new LinkedHashSet<>(repositories.values());
	}

	private void scheduleTracking() {
		trackingStale = true;
		if (!closed) {
			trackJob.schedule();
		}
	}

	// ---- detection: listeners only schedule work ----

	private void refsChanged(RefsChangedEvent event) {
		if (closed) {
			return;
		}
		File directory = event.getRepository().getDirectory();
		if (directory != null) {
			TrackedRepository repository = repositories.get(key(directory));
			if (repository != null) {
				repository.job.schedule();
			}
		}
	}

	private void headChanged(String key) {
		TrackedRepository repository = repositories.get(key);
		if (repository != null && !closed) {
			repository.job.schedule();
		}
	}

	private void checkAll() {
		if (!closed) {
			distinctRepositories().forEach(r -> r.job.schedule());
		}
	}

	@Override
	public void resourceChanged(IResourceChangeEvent event) {
		if (closed) {
			return;
		}
		switch (event.getType()) {
		case IResourceChangeEvent.PRE_REFRESH -> beforeRefresh(event.getSource());
		case IResourceChangeEvent.PRE_BUILD -> {
			// before the check: a switch it handles counts as the build's change (saved again, never wrongly)
			buildChanges.buildStarting(event.getDelta());
			beforeBuild();
		}
		case IResourceChangeEvent.POST_BUILD -> built(buildChanges.buildEnded(event.getDelta()), event.getBuildKind());
		case IResourceChangeEvent.POST_CHANGE -> {
			if (projectsChanged(event.getDelta())) {
				scheduleTracking();
			}
		}
		default -> {
			// not registered for other events
		}
		}
	}

	/**
	 * @return whether a POST_CHANGE delta adds, removes, opens or closes a project or changes its description: the
	 *         repositories that hold open projects may differ
	 */
	public static boolean projectsChanged(IResourceDelta delta) {
		if (delta == null) {
			return false;
		}
		for (IResourceDelta child : delta.getAffectedChildren()) {
			if (child.getKind() != IResourceDelta.CHANGED
					|| (child.getFlags() & (IResourceDelta.OPEN | IResourceDelta.DESCRIPTION)) != 0) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Before a project (or the workspace) is refreshed after a checkout, the workspace still has the markers of the
	 * files the checkout deleted: the state being left is saved now, in the refreshing thread (reads only). Restoring
	 * waits for the switch job or the build.
	 */
	private void beforeRefresh(Object source) {
		for (TrackedRepository repository : distinctRepositories()) {
			if (source instanceof IProject project && !repository.projects.contains(project)) {
				continue;
			}
			repository.lock.lock();
			try {
				if (repository.closed) {
					continue;
				}
				Head current = Head.read(repository.git);
				if (current != null) {
					if (repository.disk.handled() != null && !repository.disk.isHandled(current)) {
						switchStarting(repository); // before the refresh hands the checkout to indexers
						repository.job.schedule(); // handles the switch, which ends the hold
					}
					protocol.saveAhead(repository, current, new NullProgressMonitor());
					remember(repository);
				}
			} catch (IOException e) {
				Log.warning(Messages.bind(Messages.Switch_headUnreadable, repository.gitDir), e);
			} catch (OperationCanceledException e) {
				// cannot happen without a monitor to cancel
			} finally {
				repository.lock.unlock();
			}
		}
	}

	/**
	 * The last line of defence, in the build's thread before any builder runs: a switch not handled yet (no event,
	 * or its job is still waiting for its rule) is handled here, synchronously.
	 */
	private void beforeBuild() {
		if (trackingStale) {
			reconcile();
		}
		for (TrackedRepository repository : distinctRepositories()) {
			repository.saveAhead.userWork(); // the build first: a save ahead waits for its end
			try {
				check(repository, new NullProgressMonitor());
			} catch (OperationCanceledException e) {
				// cannot happen without a monitor to cancel
			}
		}
	}

	/**
	 * At POST_BUILD, in the build's thread, with the projects the build changed ({@link BuildChanges}): the derived
	 * data of their repositories now reflects HEAD (or is gone after a clean) and differs from any stored state. When
	 * HEAD moved while the build ran (a checkout in a terminal during a build), its builders may have read files of
	 * either commit: what the derived data reflects is unknown then.
	 */
	private void built(Set<IProject> changed, int kind) {
		if (changed.isEmpty()) {
			return;
		}
		for (TrackedRepository repository : distinctRepositories()) {
			if (repository.projects.stream().noneMatch(changed::contains)) {
				continue;
			}
			repository.lock.lock();
			try {
				if (repository.closed) {
					continue;
				}
				Head now;
				try {
					now = Head.read(repository.git);
				} catch (IOException e) {
					now = null;
				}
				repository.disk.built(kind == IncrementalProjectBuilder.CLEAN_BUILD, now);
				remember(repository);
				if (repository.disk.derived() != null) {
					repository.saveAhead.changed();
				}
			} finally {
				repository.lock.unlock();
			}
		}
	}

	// ---- tracking ----

	private void reconcile() {
		synchronized (trackLock) {
			trackingStale = false;
			if (heads == null) {
				heads = new HandledHeads(headsFile);
			}
			Map<String, File> dirs = new LinkedHashMap<>();
			Map<String, List<IProject>> wanted = new LinkedHashMap<>();
			for (IProject project : workspace.getRoot().getProjects()) {
				if (!project.isOpen() || project.getLocation() == null) {
					continue;
				}
				Optional<File> gitDir;
				try {
					gitDir = states.repositoryOf(project);
				} catch (RuntimeException e) {
					Log.warning(e.getMessage(), e);
					continue;
				}
				gitDir.ifPresent(dir -> {
					dirs.putIfAbsent(key(dir), dir);
					wanted.computeIfAbsent(key(dir), k -> new ArrayList<>()).add(project);
				});
			}
			for (TrackedRepository repository : distinctRepositories()) {
				if (!wanted.containsKey(repository.key)) {
					repositories.values().removeIf(r -> r == repository);
					if (watcher != null) {
						watcher.unwatch(repository.key);
					}
					repository.job.cancel();
					repository.saveAhead.cancel();
					release(repository);
				}
			}
			wanted.forEach((key, projects) -> {
				TrackedRepository existing = repositories.get(key);
				if (existing != null) {
					existing.projects = List.copyOf(projects);
				} else {
					add(dirs.get(key), key, List.copyOf(projects));
				}
			});
		}
	}

	private void add(File gitDir, String key, List<IProject> projects) {
		Repository git;
		try {
			git = new FileRepositoryBuilder().setGitDir(gitDir).setMustExist(true).build();
		} catch (IOException | IllegalArgumentException e) {
			Log.warning(Messages.bind(Messages.Switch_repositoryUnreadable, gitDir), e);
			return;
		}
		String canonicalKey;
		try {
			canonicalKey = key(gitDir.getCanonicalFile());
		} catch (IOException e) {
			canonicalKey = key;
		}
		TrackedRepository repository = new TrackedRepository(gitDir, key, canonicalKey, git, projects, this, protocol,
				!runsHeadlessApplication());
		boolean movedWhileClosed = false;
		// Watched before HEAD is read, and read under the repository's lock: a checkout at any moment is either in
		// what is read here or reported by the watch to a check that waits for this lock (a checkout in a terminal
		// just as the IDE starts, while this runs, was lost when the watch came after the read).
		repository.lock.lock();
		try {
			repositories.put(key, repository);
			repositories.putIfAbsent(canonicalKey, repository);
			if (watcher != null) {
				try {
					watcher.watch(key, gitDir.toPath());
				} catch (IOException e) {
					Log.warning(Messages.bind(Messages.Switch_watchFailed, gitDir), e);
				}
			}
			Head current;
			try {
				current = Head.read(git);
			} catch (IOException e) {
				Log.warning(Messages.bind(Messages.Switch_headUnreadable, gitDir), e);
				current = null;
			}
			// The headless application works on states explicitly (its switch command included): what happened to
			// HEAD before it started is not a switch to handle.
			HandledHeads.Remembered remembered = runsHeadlessApplication() ? null : heads.get(key);
			if (remembered != null) {
				movedWhileClosed = repository.disk.remembered(remembered.handled(), remembered.derived(),
						remembered.stored(), current);
			} else {
				repository.disk.firstSeen(current);
				remember(repository);
			}
		} finally {
			repository.lock.unlock();
		}
		if (movedWhileClosed) {
			repository.job.schedule();
		}
	}

	/**
	 * @return whether this Eclipse runs the headless application, which works on states explicitly: what happened to
	 *         HEAD before it started is not a switch to handle. The launcher's {@code -application} argument
	 *         overrides the {@code eclipse.application} of config.ini only in the framework's properties.
	 */
	private static boolean runsHeadlessApplication() {
		if (HEADLESS_APPLICATION.equals(System.getProperty("eclipse.application"))) { //$NON-NLS-1$
			return true;
		}
		List<String> arguments = List.of(Platform.getCommandLineArgs());
		int at = arguments.indexOf("-application"); //$NON-NLS-1$
		return at >= 0 && at + 1 < arguments.size() && HEADLESS_APPLICATION.equals(arguments.get(at + 1));
	}

	private void remember(TrackedRepository repository) {
		Head handled = repository.disk.handled();
		if (handled != null && heads != null) {
			heads.put(repository.key, handled, repository.disk.derived(), repository.disk.stored());
		}
	}

	// ---- the check, from the switch job or the PRE_BUILD listener ----

	/**
	 * Compares HEAD with the last handled one and, when it moved, runs the switch protocol. The caller holds
	 * {@link #switchRule()} (the switch job) or runs in a PRE_BUILD listener.
	 */
	void check(TrackedRepository repository, IProgressMonitor monitor) {
		Laps laps = Laps.start("switch of " + repository.displayName()); //$NON-NLS-1$
		repository.lock.lock();
		laps.lap("lock"); //$NON-NLS-1$
		try {
			if (repository.closed) {
				return;
			}
			Head current;
			try {
				current = Head.read(repository.git);
			} catch (IOException e) {
				Log.warning(Messages.bind(Messages.Switch_headUnreadable, repository.gitDir), e);
				return;
			}
			if (current == null || repository.disk.isHandled(current)) {
				return;
			}
			if (repository.disk.handled() == null) {
				repository.disk.firstSeen(current);
				remember(repository);
				return;
			}
			laps.lap("head"); //$NON-NLS-1$
			switchStarting(repository);
			laps.lap("contributors told"); //$NON-NLS-1$
			try {
				protocol.handle(repository, current, laps, monitor);
			} catch (OperationCanceledException e) {
				String message = Messages.bind(Messages.Switch_canceled, repository.displayName(),
						current.describe());
				states.fireEvent(new StateEvent(Kind.SKIPPED,
						repository.gitDir, current.commitId(), current.branch(), message, Status.info(message), 0, 0,
						0, Duration.ZERO));
				throw e;
			} finally {
				repository.disk.switchHandled(current);
				remember(repository);
				if (current.equals(repository.disk.derived()) && !repository.disk.stored()) {
					repository.saveAhead.changed(); // a commit carried the derived data: not stored yet
				}
				laps.lap("remembered"); //$NON-NLS-1$
			}
		} finally {
			switchEnded(repository); // no switch is pending now (or HEAD went back before it was handled)
			repository.lock.unlock();
			laps.lap("contributors released"); //$NON-NLS-1$
			laps.end();
		}
	}

	/**
	 * @return when a switch of the repository is pending, the jobs the contributors need to have run before it (see
	 *         {@link dev.branchstate.core.IStateContributor#jobsBeforeSwitch}); none otherwise
	 */
	List<Job> jobsBeforeSwitch(TrackedRepository repository) {
		if (!(states instanceof StateService service)) {
			return List.of();
		}
		repository.lock.lock();
		try {
			Head current = repository.closed ? null : Head.read(repository.git);
			if (current == null || repository.disk.handled() == null || repository.disk.isHandled(current)) {
				return List.of();
			}
		} catch (IOException e) {
			return List.of(); // the check says so
		} finally {
			repository.lock.unlock();
		}
		return service.contributors().jobsBeforeSwitch(repository.projects);
	}

	/**
	 * A switch of the repository is pending (called under its lock): the contributors hold their background work
	 * (JDT's indexer, say) until {@link #switchEnded}, so that it does not work on files a restore makes moot.
	 */
	private void switchStarting(TrackedRepository repository) {
		if (repository.switchEnds == null && states instanceof StateService service) {
			repository.switchEnds = service.contributors().switchStarting(repository.projects);
		}
	}

	/** The repository is no longer followed: what a pending switch holds is released, the repository closed. */
	private static void release(TrackedRepository repository) {
		repository.lock.lock();
		try {
			switchEnded(repository);
		} finally {
			repository.lock.unlock();
		}
		repository.close();
	}

	/** No switch of the repository is pending (called under its lock, or when it is closed). */
	private static void switchEnded(TrackedRepository repository) {
		Runnable ends = repository.switchEnds;
		repository.switchEnds = null;
		if (ends != null) {
			ends.run();
		}
	}

	// ---- save participant: save every repository's state at shutdown ----

	@Override
	public void saving(org.eclipse.core.resources.ISaveContext context) throws CoreException {
		if (context.getKind() != org.eclipse.core.resources.ISaveContext.FULL_SAVE || closed) {
			return;
		}
		List<TrackedRepository> all = new ArrayList<>(distinctRepositories());
		SubMonitor progress = SubMonitor.convert(null, Messages.Switch_saveJobName, all.size());
		for (TrackedRepository repository : all) {
			saveAtShutdown(repository, progress.split(1));
		}
	}

	private void saveAtShutdown(TrackedRepository repository, IProgressMonitor monitor) {
		repository.lock.lock();
		try {
			List<IProject> projects = repository.projects;
			if (repository.closed || !SwitchProtocol.autoSwitch(projects)) {
				return;
			}
			// the switch's rule, silently: nothing to tell at shutdown when the data is not saved
			if (protocol.decideSave(repository, projects) instanceof DiskState.Save save) {
				try {
					protocol.save(repository, save.head(), monitor);
				} catch (CoreException e) {
					SwitchProtocol.serviceFailed(e);
				} catch (OperationCanceledException e) {
					// the user cancelled the shutdown save: the state is saved next time
				}
				remember(repository);
			}
		} finally {
			repository.lock.unlock();
		}
	}

	@Override
	public void prepareToSave(org.eclipse.core.resources.ISaveContext context) {
		// nothing to prepare
	}

	@Override
	public void doneSaving(org.eclipse.core.resources.ISaveContext context) {
		// nothing kept per save number
	}

	@Override
	public void rollback(org.eclipse.core.resources.ISaveContext context) {
		// a state saved by a failed workspace save is still a valid state
	}
}
