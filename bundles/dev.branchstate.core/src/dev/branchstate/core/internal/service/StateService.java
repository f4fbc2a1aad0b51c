package dev.branchstate.core.internal.service;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.Platform;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.osgi.util.NLS;
import org.osgi.framework.FrameworkUtil;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import dev.branchstate.archive.ArchiveReader;
import dev.branchstate.archive.Archives;
import dev.branchstate.archive.ExtractOptions;
import dev.branchstate.core.IStateListener;
import dev.branchstate.core.IStateService;
import dev.branchstate.core.RestoreResult;
import dev.branchstate.core.RemoteStoreCheck;
import dev.branchstate.core.RemoteStoreSettings;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.LockOrder;
import dev.branchstate.core.internal.Log;
import dev.branchstate.core.internal.Messages;
import dev.branchstate.core.internal.contributors.ContributorRegistry;
import dev.branchstate.core.internal.store.StateStore;

/**
 * The state service: wires the store, the contributors, the preferences and the listeners. Each save runs as a
 * {@link SaveOperation}, each restore as a {@link RestoreRun}, start to end; both are serialized per repository
 * ({@link #lockOf}); the catalog stays readable meanwhile.
 * A failure is told once, as one FAILED event and the thrown {@link CoreException}; it is not logged here: the
 * caller that handles it logs it (a Job returns its status, which the job framework logs).
 */
@Component(service = IStateService.class)
public final class StateService implements IStateService {

	/** Job family of the store's second look for a killed save's leftovers ({@link LeftoverCleaning}). */
	public static final Object LEFTOVERS_FAMILY = StateService.class.getName() + ".leftovers"; //$NON-NLS-1$

	private final IWorkspace workspace;
	private final ContributorRegistry contributors;
	private final RemoteService remote = new RemoteService(this);
	private final RestoreJournal journal;
	private final InterruptedRestores interruptedRestores;
	private final ProjectBuilds builds;
	private final HandOffCompletion handOffCompletion;
	private final StateEvents events = new StateEvents();
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
		this.interruptedRestores = new InterruptedRestores(workspace, journal, contributors);
		interruptedRestores.install();
		this.builds = new ProjectBuilds(workspace, contributors);
		this.handOffCompletion = new HandOffCompletion(workspace, journal, builds::whyNotBuilt);
		handOffCompletion.install();
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
		interruptedRestores.uninstall();
		handOffCompletion.uninstall();
		contributors.dispose();
	}

	/** @return the record of the restores that are writing (internal: tests) */
	public RestoreJournal restoreJournal() {
		return journal;
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
		Path location = storeOverride != null ? storeOverride : StorePreferences.storeLocation();
		if (store == null || !store.directory().equals(location.toAbsolutePath().normalize())) {
			try {
				store = new StateStore(location);
			} catch (IOException e) {
				throw new CoreException(Status.error(NLS.bind(Messages.Store_cannotWrite, location), e));
			}
			LeftoverCleaning.start(store, this::isCurrent);
		}
		return store;
	}

	private synchronized boolean isCurrent(StateStore candidate) {
		return store == candidate;
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

	/**
	 * @return the open projects of the workspace that belong to the repository (not to a nested one), but those whose
	 *         folder a checkout removed ({@link ProjectPaths#descriptionOnDisk})
	 */
	public List<IProject> projectsOf(File gitDir) {
		File key = StateStore.canonical(gitDir);
		List<IProject> result = new ArrayList<>();
		for (IProject p : workspace.getRoot().getProjects()) {
			if (p.isOpen() && ProjectPaths.descriptionOnDisk(p) && repositoryOf(p).filter(key::equals).isPresent()) {
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
	public RemoteStoreCheck checkRemoteStore(RemoteStoreSettings settings, IProgressMonitor monitor)
			throws CoreException {
		return remote.check(settings, monitor);
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
				events.deleted(removed, Messages.Service_deleted);
			}
		} catch (IOException e) {
			throw new CoreException(Status.error(
					NLS.bind(Messages.Service_deleteFailed, state.gitDir(), state.commitId()), e));
		}
	}

	@Override
	public void addStateListener(IStateListener listener) {
		events.add(listener);
	}

	@Override
	public void removeStateListener(IStateListener listener) {
		events.remove(listener);
	}

	/** @return the lock that serializes the saves and restores of the repository (its canonical Git directory) */
	ReentrantLock lockOf(File dir) {
		return repositoryLocks.computeIfAbsent(dir, d -> new ReentrantLock());
	}

	// ------------------------------------------------------------------------------------------------- save

	@Override
	public StateInfo save(File gitDir, IProgressMonitor monitor) throws CoreException {
		return LockOrder.inWorkspaceRule(workspace, monitor,
				() -> new SaveOperation(this, events, gitDir, null, null, true).run(monitor));
	}

	@Override
	public StateInfo save(File gitDir, String commitId, String branch, IProgressMonitor monitor)
			throws CoreException {
		return LockOrder.inWorkspaceRule(workspace, monitor,
				() -> new SaveOperation(this, events, gitDir, commitId, branch, false).run(monitor));
	}

	@Override
	public void fireEvent(StateEvent event) {
		events.fire(event);
	}

	@Override
	public void awaitBuild(File gitDir, IProgressMonitor monitor) throws CoreException {
		builds.await(projectsOf(StateStore.canonical(gitDir)), monitor);
	}

	/** @return why the project's build is not complete ({@link ProjectBuilds#whyNotBuilt}); empty when it is */
	Optional<String> whyNotBuilt(IProject project) {
		return builds.whyNotBuilt(project);
	}

	// ---------------------------------------------------------------------------------------------- restore

	@Override
	public RestoreResult restore(File gitDir, String commitId, IProgressMonitor monitor) throws CoreException {
		return restore(gitDir, commitId, null, monitor);
	}

	/** {@link #restore(File, String, IProgressMonitor)} with the working tree's status read ahead by a switch. */
	public RestoreResult restore(File gitDir, String commitId, CompletableFuture<WorkingTreeStatus> statusAhead,
			IProgressMonitor monitor) throws CoreException {
		return LockOrder.inWorkspaceRule(workspace, monitor,
				() -> new RestoreRun(this, workspace, events, gitDir, commitId, statusAhead).run(monitor));
	}

	// ---------------------------------------------------------------------------------------------- helpers

	/** Reads every entry of a stored state (sizes and CRC-32 checked). @throws IOException for a damaged one */
	public void verify(StateInfo state, IProgressMonitor monitor) throws IOException {
		verifyArchive(state, RestoreOperation.extractOptions(SubMonitor.convert(monitor, 1)::isCanceled));
	}

	/**
	 * {@link #verify(StateInfo, IProgressMonitor)} without a service or preferences (the soak's driver verifies the
	 * store so in a plain JVM: releng/soak/SoakStore.java); the options give only the threads and the cancellation.
	 */
	public static void verifyArchive(StateInfo state, ExtractOptions options) throws IOException {
		try (ArchiveReader reader = Archives.open(state.archive())) {
			StateLayout.decode(reader.readAllBytes(StateLayout.PARTS, 16 << 20));
			reader.verify(List.of(""), options); //$NON-NLS-1$
		}
	}
}
