package dev.branchstate.core.internal.prefetch;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResourceChangeEvent;
import org.eclipse.core.resources.IResourceChangeListener;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.Platform;
import org.eclipse.core.runtime.jobs.IJobChangeEvent;
import org.eclipse.core.runtime.jobs.IJobChangeListener;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.core.runtime.jobs.JobChangeAdapter;
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
import dev.branchstate.core.internal.Log;
import dev.branchstate.core.internal.Messages;
import dev.branchstate.core.internal.service.StateService;
import dev.branchstate.core.internal.service.StorePreferences;
import dev.branchstate.core.internal.store.StateStore;
import dev.branchstate.core.internal.switching.SwitchManager;

/**
 * Prefetch for every Git repository that holds open projects of the workspace: detects that remote-tracking refs may
 * have moved — a {@link RemoteRefsWatcher} on each repository (a {@code git fetch} in a terminal, or by JGit) and the
 * JGit {@link RefsChangedEvent} (fetches made inside Eclipse) — and checks, on its own thread and without a request to
 * the remote store, whether selected tips really moved (most ref changes are checkouts and commits); only then it
 * schedules the {@link PrefetchJob}. Listeners do no I/O. A build (PRE_BUILD, or a build job scheduled) and a switch
 * (a switch job scheduled) cancel a prefetch in progress. Keeps the {@link PrefetchLedger} in step with the store: a prefetched state
 * restored or deleted is no longer counted as prefetched. Not in the headless application, which works on states
 * explicitly.
 */
@Component(service = Prefetcher.class, immediate = true)
public final class Prefetcher implements IResourceChangeListener {

	/** Job family of the prefetch job: join it to wait until what moved is prefetched. */
	public static final Object FAMILY = Prefetcher.class.getName();

	private static final String HEADLESS_APPLICATION = "dev.branchstate.core.app"; //$NON-NLS-1$
	private static final long CHECK_DELAY_MS = 300;

	private final IWorkspace workspace;
	private final StateService service;
	private final PrefetchLedger ledger;
	private final SeenTips seen;
	private final PrefetchJob job;
	private final RemoteRefsWatcher watcher;
	private final ListenerHandle refsListener;
	private final IStateListener stateListener = this::stateChanged;
	private final IJobChangeListener jobListener = new JobChangeAdapter() {
		@Override
		public void scheduled(IJobChangeEvent event) {
			Job scheduled = event.getJob();
			if (scheduled.belongsTo(SwitchManager.FAMILY) || scheduled.belongsTo(ResourcesPlugin.FAMILY_AUTO_BUILD)
					|| scheduled.belongsTo(ResourcesPlugin.FAMILY_MANUAL_BUILD)) {
				job.userWork();
			}
		}
	};
	/** Runs the checks of what moved, one at a time, a little after the event (a fetch writes several files). */
	private final ScheduledExecutorService checker = Executors.newSingleThreadScheduledExecutor(
			Thread.ofPlatform().name("Branchstate prefetch check").daemon().factory()); //$NON-NLS-1$
	private final AtomicBoolean checkPending = new AtomicBoolean();
	/** Canonical Git directory → the repository opened for as long as it holds open projects. */
	private final Map<File, Repository> followed = new HashMap<>();
	private volatile boolean closed;

	@Activate
	public Prefetcher(@Reference IStateService states, @Reference IWorkspace workspace) {
		this.workspace = workspace;
		this.service = states instanceof StateService own ? own : null;
		Path folder = Platform.getStateLocation(FrameworkUtil.getBundle(Prefetcher.class)).append("prefetch").toPath(); //$NON-NLS-1$
		this.ledger = new PrefetchLedger(folder.resolve("ledger.properties"), Clock.systemUTC()); //$NON-NLS-1$
		this.seen = new SeenTips(folder.resolve("tips.properties")); //$NON-NLS-1$
		this.job = new PrefetchJob(service, this::repositories, seen, ledger);
		RemoteRefsWatcher refsWatcher = null;
		if (service != null && !runsHeadlessApplication()) {
			try {
				refsWatcher = new RemoteRefsWatcher(this::moved);
			} catch (IOException e) {
				Log.warning(Messages.bind(Messages.Switch_watchFailed, "*"), e); //$NON-NLS-1$
			}
		}
		this.watcher = refsWatcher;
		if (watcher == null) {
			this.refsListener = null;
			return; // the headless application, or another state service: no prefetch
		}
		this.refsListener = Repository.getGlobalListenerList().addRefsChangedListener(this::refsChanged);
		workspace.addResourceChangeListener(this, IResourceChangeEvent.POST_CHANGE | IResourceChangeEvent.PRE_BUILD);
		Job.getJobManager().addJobChangeListener(jobListener);
		states.addStateListener(stateListener);
		moved(null);
	}

	@Deactivate
	public void close() {
		closed = true;
		if (watcher == null) {
			return;
		}
		refsListener.remove();
		workspace.removeResourceChangeListener(this);
		Job.getJobManager().removeJobChangeListener(jobListener);
		service.removeStateListener(stateListener);
		watcher.close();
		checker.shutdownNow();
		job.cancel();
		try {
			job.join(10_000, null);
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
		}
		synchronized (this) {
			followed.values().forEach(Repository::close);
			followed.clear();
		}
	}

	/** @return the ledger of what the prefetch fetched and used of its budget */
	public PrefetchLedger ledger() {
		return ledger;
	}

	/**
	 * What the prefetch uses of its budget (workspace preferences).
	 *
	 * @param states         prefetched states no switch has restored yet
	 * @param bytes          their archives' bytes
	 * @param shareBytes     what they may take: the prefetch's share of the disk budget
	 * @param bytesToday     bytes the prefetch downloaded today (UTC)
	 * @param maxBytesPerDay what it may download in a day
	 * @param active         whether the prefetch can run now: on, with a remote store and a pinned key
	 */
	public record BudgetUse(int states, long bytes, long shareBytes, long bytesToday, long maxBytesPerDay,
			boolean active) {
	}

	/** @return what the prefetch uses of its budget now; states the store no longer holds are dropped first */
	public BudgetUse budgetUse() throws IOException {
		PrefetchSettings settings = PrefetchSettings.of(List.of());
		PrefetchLedger.Use use = ledger
				.use((gitDir, commit) -> service != null && service.states(gitDir).stream()
						.anyMatch(s -> s.commitId().equals(commit)));
		boolean active = settings.enabled() && service != null && service.remote().usableForPrefetch();
		return new BudgetUse(use.prefetchedStates(), use.prefetchedBytes(),
				settings.budgetBytes(StorePreferences.budgetBytes()), use.bytesToday(), settings.maxBytesPerDay(), active);
	}

	/**
	 * Looks for moved remote-tracking refs now, in the calling thread (as if a watch had reported a fetch): watches
	 * the repositories of the workspace's projects, takes those new to it as they are, and schedules the job when
	 * selected tips moved.
	 */
	public void checkNow() {
		if (!closed && watcher != null) {
			check();
		}
	}

	private synchronized void check() {
		boolean run = false;
		for (Followed f : repositories()) {
			try {
				run |= new RepositoryPrefetch(service, f.repository(), f.gitDir(), seen, ledger).moved();
			} catch (IOException | RuntimeException e) {
				Log.warning(Messages.bind(Messages.Prefetch_failed, f.gitDir(), e.getMessage()), e);
			}
		}
		if (run) {
			job.request();
		}
	}

	/** A repository with open projects: its canonical Git directory and the Repository opened for it. */
	record Followed(File gitDir, Repository repository) {
	}

	/**
	 * @return the repositories with open projects; watches and opens those new, stops watching and closes the others
	 */
	private synchronized List<Followed> repositories() {
		Set<File> dirs = new LinkedHashSet<>();
		for (IProject project : workspace.getRoot().getProjects()) {
			if (project.isOpen() && project.getLocation() != null) {
				service.repositoryOf(project).ifPresent(dirs::add);
			}
		}
		for (File gitDir : List.copyOf(followed.keySet())) {
			if (!dirs.contains(gitDir)) {
				watcher.unwatch(gitDir);
				followed.remove(gitDir).close();
			}
		}
		List<Followed> result = new ArrayList<>();
		for (File gitDir : dirs) {
			Repository repository = followed.get(gitDir);
			if (repository == null) {
				try {
					repository = new FileRepositoryBuilder().setGitDir(gitDir).setMustExist(true).build();
					watcher.watch(gitDir);
				} catch (IOException e) {
					Log.warning(Messages.bind(Messages.Switch_watchFailed, gitDir), e);
					if (repository != null) {
						repository.close();
					}
					continue;
				}
				followed.put(gitDir, repository);
			}
			result.add(new Followed(gitDir, repository));
		}
		return result;
	}

	/** Remote-tracking refs may have moved (of {@code gitDir}; {@code null}: of any repository): checked soon. */
	private void moved(File gitDir) {
		if (!closed && checkPending.compareAndSet(false, true)) {
			checker.schedule(() -> {
				checkPending.set(false);
				check();
			}, CHECK_DELAY_MS, TimeUnit.MILLISECONDS);
		}
	}

	private void refsChanged(RefsChangedEvent event) {
		File directory = event.getRepository().getDirectory();
		// no I/O here: the path as JGit names it, against the canonical paths watched (a symbolic link between them
		// leaves the event to the watch, which sees the same fetch)
		if (!closed && directory != null
				&& watcher.watched().contains(directory.getAbsoluteFile().toPath().normalize().toFile())) {
			moved(directory);
		}
	}

	@Override
	public void resourceChanged(IResourceChangeEvent event) {
		if (closed) {
			return;
		}
		if (event.getType() == IResourceChangeEvent.PRE_BUILD) {
			job.userWork(); // the build first: the prefetch comes back when the IDE is quiet
		} else if (SwitchManager.projectsChanged(event.getDelta())) {
			moved(null); // repositories may have appeared: they are watched (and taken as they are) from now on
		}
	}

	/** A prefetched state restored (used) or deleted is no longer a prefetched one. */
	private void stateChanged(StateEvent event) {
		if ((event.kind() == StateEvent.Kind.RESTORED || event.kind() == StateEvent.Kind.DELETED)
				&& event.gitDir() != null && event.commitId() != null) {
			try {
				ledger.used(StateStore.canonical(event.gitDir()), event.commitId());
			} catch (IOException e) {
				Log.warning(e.getMessage(), e);
			}
		}
	}

	/** @return whether this Eclipse runs the headless application (see SwitchManager) */
	private static boolean runsHeadlessApplication() {
		if (HEADLESS_APPLICATION.equals(System.getProperty("eclipse.application"))) { //$NON-NLS-1$
			return true;
		}
		List<String> arguments = List.of(Platform.getCommandLineArgs());
		int at = arguments.indexOf("-application"); //$NON-NLS-1$
		return at >= 0 && at + 1 < arguments.size() && HEADLESS_APPLICATION.equals(arguments.get(at + 1));
	}
}
