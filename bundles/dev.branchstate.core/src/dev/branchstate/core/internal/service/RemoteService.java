package dev.branchstate.core.internal.service;

import java.io.File;
import java.io.IOException;
import java.security.PrivateKey;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.osgi.util.NLS;

import dev.branchstate.core.RemoteStoreCheck;
import dev.branchstate.core.RemoteStoreSettings;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.Log;
import dev.branchstate.core.internal.Messages;
import dev.branchstate.core.internal.remote.CompatibilityKey;
import dev.branchstate.core.internal.remote.ConnectionCheck;
import dev.branchstate.core.internal.remote.RemoteConfiguration;
import dev.branchstate.core.internal.remote.RemoteSettings;
import dev.branchstate.core.internal.remote.RemoteStates;
import dev.branchstate.core.internal.remote.S3Client;
import dev.branchstate.core.internal.remote.TooLargeException;
import dev.branchstate.core.internal.store.StateStore;

/**
 * Remote states for the repositories of the workspace: what is published for a repository's projects as they are
 * configured here (identity and compatibility key), publish, and fetch into the local store (with a FETCHED event).
 * <p>
 * A switch must never fail or wait long because of the remote store: after {@value #FAILURES_TO_GIVE_UP} failures in a
 * row the store is left alone until Eclipse restarts, with one warning in the Error Log and one
 * {@link StateEvent.Kind#REMOTE_GIVEN_UP} event (the UI tells the user once).
 */
public final class RemoteService {

	static final int FAILURES_TO_GIVE_UP = 3;

	private final StateService service;
	private final AtomicInteger failuresInARow = new AtomicInteger();
	private volatile boolean givenUp;
	/** Settings for tests and the headless application; {@code null}: the preferences'. */
	private volatile RemoteSettings override;

	RemoteService(StateService service) {
		this.service = service;
	}

	/** Uses these settings instead of the preferences (tests, headless options); {@code null} to go back. */
	public void setSettings(RemoteSettings settings) {
		override = settings;
		givenUp = false;
		failuresInARow.set(0);
	}

	/** @return the settings in effect, if a remote store is configured */
	public Optional<RemoteSettings> settings() {
		RemoteSettings s = override;
		return s != null ? Optional.of(s) : RemoteConfiguration.read();
	}

	/** @return whether a switch should ask the remote store: configured, a key pinned, not given up */
	public boolean usableForSwitch() {
		try {
			return !givenUp && RemoteConfiguration.fetchOnSwitch()
					&& settings().map(s -> s.publicKey().isPresent()).orElse(false);
		} catch (IllegalArgumentException e) {
			return false;
		}
	}

	/** Where a repository's states are in the remote store. */
	public record Address(String repositoryId, CompatibilityKey compatibility) {
	}

	/** @return the repository's identity and its projects' compatibility key as configured here */
	public Address address(Repository repository, File gitDir) throws CoreException, IOException {
		List<IProject> projects = service.projectsOf(gitDir);
		if (projects.isEmpty()) {
			throw new CoreException(Status.info(NLS.bind(Messages.Service_noProjects, gitDir)));
		}
		return new Address(RemoteConfiguration.repositoryId(repository, projects),
				RemoteConfiguration.compatibility(projects, service.contributors()));
	}

	private RemoteStates remote() throws CoreException {
		RemoteSettings settings = settings()
				.orElseThrow(() -> new CoreException(Status.error(Messages.Remote_notConfigured)));
		return new RemoteStates(new S3Client(settings), 4);
	}

	/** @return the commits of the repository that have a state in the remote store for this configuration */
	public Set<String> publishedCommits(Repository repository, File gitDir) throws CoreException {
		try {
			Address address = address(repository, gitDir);
			Set<String> commits = remote().commits(address.repositoryId(), address.compatibility());
			succeeded();
			return commits;
		} catch (IOException e) {
			throw failed(e);
		}
	}

	/**
	 * Publishes the local state of {@code commit}, which HEAD must be at: the compatibility key is read from the
	 * projects as they are (CI saves and publishes each commit it builds in turn).
	 *
	 * @return what was done
	 */
	public RemoteStates.Published publish(File gitDir, String commit, PrivateKey key, String creator,
			IProgressMonitor monitor) throws CoreException {
		File dir = StateStore.canonical(gitDir);
		StateInfo state = service.states(dir).stream().filter(s -> s.commitId().equals(commit)).findFirst()
				.orElseThrow(() -> new CoreException(Status.error(NLS.bind(Messages.Remote_noLocalState, dir, commit))));
		try (Repository repository = new FileRepositoryBuilder().setGitDir(dir).setMustExist(true).build()) {
			// the compatibility key is read from the projects as they are now: they must be the commit's
			ObjectId head = repository.resolve(Constants.HEAD);
			if (head == null || !head.name().equals(commit)) {
				throw new CoreException(Status.error(NLS.bind(Messages.Remote_publishNotHead, commit,
						head == null ? "?" : head.name()))); //$NON-NLS-1$
			}
			Address address = address(repository, dir);
			return remote().publish(state, address.repositoryId(), address.compatibility(), key, creator,
					canceled(monitor, null));
		} catch (CancellationException e) {
			throw new OperationCanceledException();
		} catch (IOException e) {
			throw new CoreException(Status.error(NLS.bind(Messages.Remote_publishFailed, commit, e.getMessage()), e));
		}
	}

	/**
	 * Fetches the published state of {@code commit} into the local store, within {@code deadline} if given.
	 *
	 * @return the local state
	 * @throws CoreException naming the object and the reason; nothing is entered then
	 */
	public StateInfo fetch(Repository repository, File gitDir, String commit, Duration deadline,
			IProgressMonitor monitor) throws CoreException {
		try {
			return fetch(repository, gitDir, commit, repository.resolve(Constants.HEAD), Constants.HEAD,
					StorePreferences.budgetBytes(), deadline, Messages.Remote_fetched, monitor);
		} catch (IOException e) {
			throw failed(e);
		}
	}

	/** @return whether a prefetch may ask the remote store: configured, a key pinned, not given up */
	public boolean usableForPrefetch() {
		try {
			return !givenUp && settings().map(s -> s.publicKey().isPresent()).orElse(false);
		} catch (IllegalArgumentException e) {
			return false;
		}
	}

	/**
	 * Fetches the published state of {@code commit} ahead of a switch, for the remote-tracking branch {@code ref} at
	 * {@code tip} (the commit must be the tip or an ancestor of it), with the checks of a fetch at a switch.
	 *
	 * @param largest the largest archive accepted (what is left of the prefetch's budget), in bytes
	 * @return the local state
	 * @throws CoreException naming the object and the reason; nothing is entered then (INFO: larger than accepted)
	 */
	public StateInfo prefetch(Repository repository, File gitDir, String commit, String ref, ObjectId tip,
			long largest, IProgressMonitor monitor) throws CoreException {
		return fetch(repository, gitDir, commit, tip, ref, largest, null, Messages.Remote_prefetched, monitor);
	}

	private StateInfo fetch(Repository repository, File gitDir, String commit, ObjectId within, String withinName,
			long largest, Duration deadline, String doneMessage, IProgressMonitor monitor) throws CoreException {
		long start = System.nanoTime();
		SubMonitor progress = SubMonitor.convert(monitor, NLS.bind(Messages.Remote_fetching, commit.substring(0, 10)),
				100);
		try {
			Address address = address(repository, gitDir);
			StateStore store = service.store();
			AtomicLong done = new AtomicLong();
			StateInfo state = remote().fetch(repository,
					new RemoteStates.Wanted(address.repositoryId(), address.compatibility(), commit, within, withinName,
							largest),
					store, GitFacts.commitsInUse(repository), StorePreferences.budgetBytes(),
					canceled(progress, deadline == null ? null : start + deadline.toNanos()),
					n -> progress.setTaskName(NLS.bind(Messages.Remote_fetchingBytes, commit.substring(0, 10),
							Long.valueOf(done.addAndGet(n) >> 20))));
			succeeded();
			service.fireEvent(new StateEvent(StateEvent.Kind.FETCHED, gitDir, commit, null,
					NLS.bind(doneMessage, commit.substring(0, 10), Long.valueOf(state.size() >> 20)),
					Status.OK_STATUS, 0, state.size(), 0, Duration.ofNanos(System.nanoTime() - start)));
			return state;
		} catch (CancellationException e) {
			if (progress.isCanceled()) {
				throw new OperationCanceledException();
			}
			throw new CoreException(Status.info(NLS.bind(Messages.Remote_deadline, commit.substring(0, 10), deadline)));
		} catch (TooLargeException e) {
			throw new CoreException(Status.info(e.getMessage())); // the store answered: no failure of it
		} catch (IOException e) {
			throw failed(e);
		}
	}

	/**
	 * Tests the store entered: a listing and the newest manifest's signature. Its outcome does not count towards
	 * giving the configured store up.
	 */
	public RemoteStoreCheck check(RemoteStoreSettings entered, IProgressMonitor monitor) throws CoreException {
		SubMonitor progress = SubMonitor.convert(monitor, 1);
		RemoteSettings settings;
		try {
			settings = RemoteConfiguration.of(entered);
		} catch (IllegalArgumentException e) {
			throw new CoreException(Status.error(NLS.bind(Messages.Remote_checkSettings, e.getMessage()), e));
		}
		progress.setTaskName(NLS.bind(Messages.Remote_checking, settings.describe()));
		try {
			return ConnectionCheck.run(new S3Client(settings));
		} catch (IOException | IllegalArgumentException e) {
			// IllegalArgumentException: the HTTP client refuses the URL made (a virtual-host name on an IP address)
			throw new CoreException(Status.error(NLS.bind(Messages.Remote_failed, settings.describe(), e.getMessage()), e));
		} finally {
			progress.done();
		}
	}

	private static BooleanSupplier canceled(IProgressMonitor monitor, Long deadlineNanos) {
		return () -> monitor.isCanceled() || deadlineNanos != null && System.nanoTime() > deadlineNanos.longValue();
	}

	private void succeeded() {
		failuresInARow.set(0);
	}

	private CoreException failed(IOException e) {
		String where = settings().map(RemoteSettings::describe).orElse("?"); //$NON-NLS-1$
		if (failuresInARow.incrementAndGet() >= FAILURES_TO_GIVE_UP && !givenUp) {
			givenUp = true;
			String message = NLS.bind(Messages.Remote_givenUp, new Object[] { where,
					Integer.valueOf(FAILURES_TO_GIVE_UP), e.getMessage() });
			Log.warning(message);
			service.fireEvent(new StateEvent(StateEvent.Kind.REMOTE_GIVEN_UP, null, null, null, message,
					Status.warning(message, e), 0, 0, 0, Duration.ZERO));
		}
		return new CoreException(Status.error(NLS.bind(Messages.Remote_failed, where, e.getMessage()), e));
	}
}
