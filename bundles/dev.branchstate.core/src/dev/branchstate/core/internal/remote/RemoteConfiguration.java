package dev.branchstate.core.internal.remote;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.ProjectScope;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.Platform;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.preferences.IPreferencesService;
import org.eclipse.equinox.security.storage.ISecurePreferences;
import org.eclipse.equinox.security.storage.SecurePreferencesFactory;
import org.eclipse.equinox.security.storage.StorageException;
import org.eclipse.jgit.lib.Repository;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.core.RemoteStoreSettings;
import dev.branchstate.core.IStateContributor;
import dev.branchstate.core.internal.contributors.ContributorRegistry;

/**
 * Reads what remote states need from where Eclipse users keep it: the store's address and the pinned public key from
 * the preferences ({@link BranchstatePreferences}{@code .REMOTE_*}), the credentials from Equinox secure storage
 * (node {@value #SECURE_NODE}, encrypted; never a preference, a log or the catalog) or else from the environment
 * variables AWS tools use, the repository's identity from its projects' settings, and the compatibility key from the
 * contributors.
 */
public final class RemoteConfiguration {

	/** The secure storage node of the credentials. */
	public static final String SECURE_NODE = BranchstatePreferences.SECURE_REMOTE_NODE;
	static final String ACCESS_KEY = BranchstatePreferences.SECURE_ACCESS_KEY;
	static final String SECRET_KEY = BranchstatePreferences.SECURE_SECRET_KEY;

	private RemoteConfiguration() {
	}

	/**
	 * @return the settings in the preferences, with the credentials of secure storage or the environment; empty when
	 *         no endpoint or bucket is set
	 * @throws IllegalArgumentException naming the preference whose value is wrong
	 */
	public static Optional<RemoteSettings> read() {
		String endpoint = string(BranchstatePreferences.REMOTE_ENDPOINT, ""); //$NON-NLS-1$
		String bucket = string(BranchstatePreferences.REMOTE_BUCKET, ""); //$NON-NLS-1$
		if (endpoint.isBlank() || bucket.isBlank()) {
			return Optional.empty();
		}
		IPreferencesService prefs = Platform.getPreferencesService();
		String key = string(BranchstatePreferences.REMOTE_PUBLIC_KEY, ""); //$NON-NLS-1$
		int seconds = prefs.getInt(BranchstatePreferences.NODE, BranchstatePreferences.REMOTE_TIMEOUT_SECONDS, 10,
				null);
		URI uri;
		try {
			uri = URI.create(endpoint.trim());
		} catch (IllegalArgumentException e) {
			throw new IllegalArgumentException(BranchstatePreferences.REMOTE_ENDPOINT + ": not a URL: " + endpoint, e); //$NON-NLS-1$
		}
		return Optional.of(new RemoteSettings(uri, bucket.trim(), string(BranchstatePreferences.REMOTE_PREFIX, ""), //$NON-NLS-1$
				string(BranchstatePreferences.REMOTE_REGION, "us-east-1"), //$NON-NLS-1$
				prefs.getBoolean(BranchstatePreferences.NODE, BranchstatePreferences.REMOTE_PATH_STYLE, false, null),
				credentials(),
				key.isBlank() ? Optional.empty() : Optional.of(ManifestSigner.readPublicKey(key)),
				Duration.ofSeconds(Math.max(1, seconds))));
	}

	/**
	 * @return the settings the user entered (not yet saved), with the credentials typed or, where none were, those
	 *         kept in secure storage or the environment
	 * @throws IllegalArgumentException naming the setting whose value is wrong
	 */
	public static RemoteSettings of(RemoteStoreSettings entered) {
		if (entered.endpoint() == null || entered.endpoint().isBlank()) {
			throw new IllegalArgumentException("no endpoint is set"); //$NON-NLS-1$
		}
		URI uri;
		try {
			uri = URI.create(entered.endpoint().trim());
		} catch (IllegalArgumentException e) {
			throw new IllegalArgumentException("the endpoint is not a URL: " + entered.endpoint(), e); //$NON-NLS-1$
		}
		String access = entered.accessKey();
		Optional<Credentials> credentials;
		if (access != null && access.isBlank()) {
			credentials = Optional.empty();
		} else if (access != null && entered.secretKey() != null && !entered.secretKey().isEmpty()) {
			credentials = Optional.of(new Credentials(access.trim(), entered.secretKey()));
		} else {
			credentials = credentials();
		}
		String key = entered.publicKey() == null ? "" : entered.publicKey().trim(); //$NON-NLS-1$
		return new RemoteSettings(uri, entered.bucket() == null ? null : entered.bucket().trim(), entered.prefix(),
				entered.region(), entered.pathStyle(), credentials,
				key.isEmpty() ? Optional.empty() : Optional.of(ManifestSigner.readPublicKey(key)),
				Duration.ofSeconds(Math.max(1, entered.timeoutSeconds())));
	}

	/** @return seconds a switch waits at most for a remote state */
	public static Duration fetchDeadline() {
		return Duration.ofSeconds(Math.max(1, Platform.getPreferencesService().getInt(BranchstatePreferences.NODE,
				BranchstatePreferences.REMOTE_FETCH_DEADLINE_SECONDS, 120, null)));
	}

	/** @return whether a switch may fetch */
	public static boolean fetchOnSwitch() {
		return Platform.getPreferencesService().getBoolean(BranchstatePreferences.NODE,
				BranchstatePreferences.REMOTE_FETCH_ON_SWITCH, true, null);
	}

	private static String string(String key, String defaultValue) {
		return Platform.getPreferencesService().getString(BranchstatePreferences.NODE, key, defaultValue, null).trim();
	}

	/** @return the credentials of Eclipse's secure storage, else of the environment, else none */
	public static Optional<Credentials> credentials() {
		ISecurePreferences root;
		try {
			root = SecurePreferencesFactory.getDefault();
		} catch (RuntimeException e) {
			root = null;
		}
		return credentials(root, System.getenv());
	}

	/**
	 * @return the credentials kept in secure storage, else those of the environment ({@code AWS_ACCESS_KEY_ID},
	 *         {@code AWS_SECRET_ACCESS_KEY}), else none (anonymous)
	 */
	static Optional<Credentials> credentials(ISecurePreferences root, Map<String, String> environment) {
		if (root != null) {
			try {
				ISecurePreferences node = root.node(SECURE_NODE);
				String access = node.get(ACCESS_KEY, null);
				String secret = node.get(SECRET_KEY, null);
				if (access != null && !access.isBlank() && secret != null && !secret.isEmpty()) {
					return Optional.of(new Credentials(access, secret));
				}
			} catch (StorageException | RuntimeException e) {
				// secure storage unavailable (no password provider headless): the environment may still have them
			}
		}
		String access = environment.get("AWS_ACCESS_KEY_ID"); //$NON-NLS-1$
		String secret = environment.get("AWS_SECRET_ACCESS_KEY"); //$NON-NLS-1$
		if (access != null && !access.isBlank() && secret != null && !secret.isEmpty()) {
			return Optional.of(new Credentials(access, secret));
		}
		return Optional.empty();
	}

	/** Keeps the credentials in secure storage, encrypted; {@code null} removes them. */
	public static void storeCredentials(ISecurePreferences root, Credentials credentials)
			throws StorageException, IOException {
		ISecurePreferences node = root.node(SECURE_NODE);
		if (credentials == null) {
			node.removeNode();
		} else {
			node.put(ACCESS_KEY, credentials.accessKey(), false);
			node.put(SECRET_KEY, credentials.secretKey(), true);
		}
		root.flush();
	}

	/**
	 * @return the repository's identity: the value its projects' settings configure (the first project by name that
	 *         has one), else the root commit
	 */
	public static String repositoryId(Repository repository, List<IProject> projects) throws IOException {
		Optional<String> configured = projects.stream().sorted(Comparator.comparing(IProject::getName))
				.map(p -> new ProjectScope(p).getNode(BranchstatePreferences.NODE)
						.get(BranchstatePreferences.REMOTE_REPOSITORY_ID, "").trim()) //$NON-NLS-1$
				.filter(s -> !s.isEmpty()).findFirst();
		return RepositoryIdentity.of(repository, configured);
	}

	/**
	 * @return the compatibility key of the projects: for each project and each contributor that applies to it, the
	 *         contributor's id, data version and {@link IStateContributor#compatibility}
	 * @throws CoreException when a contributor cannot tell (then no remote state fits)
	 */
	public static CompatibilityKey compatibility(List<IProject> projects, ContributorRegistry registry)
			throws CoreException {
		List<String> lines = new ArrayList<>();
		for (IProject project : projects) {
			for (ContributorRegistry.Descriptor descriptor : registry.descriptors()) {
				Optional<IStateContributor> contributor = descriptor.contributor();
				if (contributor.isEmpty()) {
					continue;
				}
				IStateContributor c = contributor.get();
				ContributorRegistry.Outcome<String> line = ContributorRegistry.safely(() -> c.appliesTo(project)
						? project.getName() + ' ' + descriptor.id() + ' ' + c.version() + ' ' + c.compatibility(project)
						: null);
				if (!line.ok()) {
					throw new CoreException(ContributorRegistry.statusOf(
							descriptor.id() + " cannot tell the compatibility of " + project.getName(), //$NON-NLS-1$
							line.failure()));
				}
				if (line.value() != null) {
					lines.add(line.value());
				}
			}
		}
		if (lines.isEmpty()) {
			throw new CoreException(Status.info("no contributor has data for the projects")); //$NON-NLS-1$
		}
		return new CompatibilityKey(lines);
	}
}
