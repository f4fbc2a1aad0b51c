package dev.branchstate.core;

/**
 * Preference keys of Branchstate, in the preference node {@link #NODE} of the instance scope (workspace-wide) and,
 * for per-project overrides, of the project scope. Values are read through the platform preference service so that
 * a project value wins over the instance value, which wins over the default.
 */
public final class BranchstatePreferences {

	/** The preference node (the core bundle's symbolic name). */
	public static final String NODE = "dev.branchstate.core";

	/** boolean, default {@code true}: save and restore states automatically on a branch switch. */
	public static final String AUTO_SWITCH = "autoSwitch";

	/**
	 * boolean, default {@code true}: with automatic switching on, save the state of a complete build in the
	 * background once the IDE is quiet (at most once a minute per repository), so that a switch usually saves nothing.
	 */
	public static final String SAVE_AHEAD = "saveAhead";

	/**
	 * String, default {@code "*"}: the branches whose states are kept, as glob patterns separated by commas or new
	 * lines (e.g. {@code main, release/*, feature/*}).
	 */
	public static final String BRANCH_PATTERNS = "branchPatterns";

	/** String, default empty: the folder of the state store; empty means the core bundle's state location. */
	public static final String STORE_LOCATION = "storeLocation";

	/** int, default 10240: the disk budget of the state store in MiB; least recently used states go first. */
	public static final String DISK_BUDGET_MB = "diskBudgetMB";

	/** int 1..19, default 3: the zstd compression level of state archives (data already compressed: level 1). */
	public static final String COMPRESSION_LEVEL = "compressionLevel";

	/** int, default 0: threads used to write and read state archives; 0 means one per processor. */
	public static final String WORKER_THREADS = "workerThreads";

	/**
	 * String, default empty: project-relative folders saved as derived data besides the resources Eclipse marks
	 * derived, as glob patterns separated by commas or new lines (e.g. {@code target, node_modules}).
	 */
	public static final String DERIVED_FOLDERS = "derivedFolders";

	/**
	 * String, default empty: the S3 endpoint of the remote state store (e.g. {@code https://s3.eu-central-1.amazonaws.com}
	 * or {@code http://minio.example.com:9000}); empty means no remote store. Credentials are never a preference: they
	 * are kept in Eclipse's secure storage (or, headless, taken from {@code AWS_ACCESS_KEY_ID} and
	 * {@code AWS_SECRET_ACCESS_KEY}); without them, requests are anonymous and read-only.
	 */
	public static final String REMOTE_ENDPOINT = "remoteEndpoint";

	/** String, default empty: the bucket of the remote state store. */
	public static final String REMOTE_BUCKET = "remoteBucket";

	/** String, default {@code branchstate}: the key prefix of Branchstate's objects in the bucket. */
	public static final String REMOTE_PREFIX = "remotePrefix";

	/** String, default {@code us-east-1}: the region requests are signed for. */
	public static final String REMOTE_REGION = "remoteRegion";

	/** boolean, default {@code false}: path-style addressing ({@code endpoint/bucket/key}) instead of virtual-host. */
	public static final String REMOTE_PATH_STYLE = "remotePathStyle";

	/**
	 * String, default empty: the Ed25519 public key (PEM, or the Base64 line inside it) that every fetched manifest
	 * must be signed with; empty means nothing is fetched.
	 */
	public static final String REMOTE_PUBLIC_KEY = "remotePublicKey";

	/** boolean, default {@code true}: on a switch with no stored state close enough, fetch one from the remote store. */
	public static final String REMOTE_FETCH_ON_SWITCH = "remoteFetchOnSwitch";

	/** int, default 10: seconds a request to the remote store may take (not counting archive data). */
	public static final String REMOTE_TIMEOUT_SECONDS = "remoteTimeoutSeconds";

	/**
	 * int, default 120: seconds a switch waits at most for a remote state (lookup and download); past it the switch
	 * goes on as if there were no remote state and the builders build.
	 */
	public static final String REMOTE_FETCH_DEADLINE_SECONDS = "remoteFetchDeadlineSeconds";

	/**
	 * boolean, default {@code true}: with a remote store configured and a key pinned, fetch the published states of
	 * remote-tracking branches when they move (after a {@code git fetch}), in the background, before a switch needs them.
	 */
	public static final String PREFETCH = "prefetch";

	/**
	 * String, default empty: the remote-tracking branches whose states are prefetched, as glob patterns over their
	 * short names separated by commas or new lines (e.g. {@code origin/main, origin/release/*}); empty means the
	 * branches of any remote that match {@link #BRANCH_PATTERNS}, and the upstream of the branch checked out.
	 */
	public static final String PREFETCH_REFS = "prefetchRefs";

	/** int 0..100, default 25: the share of the disk budget that prefetched states not restored yet may take, in %. */
	public static final String PREFETCH_BUDGET_PERCENT = "prefetchBudgetPercent";

	/** int, default 2048: the most a prefetch downloads in a day (UTC), in MiB. */
	public static final String PREFETCH_MAX_MB_PER_DAY = "prefetchMaxMBPerDay";

	/**
	 * String, project scope, default empty: the repository's identity in the remote store, the same in every clone
	 * (kept in the project's settings, shared through Git); empty means its root commit.
	 */
	public static final String REMOTE_REPOSITORY_ID = "remoteRepositoryId";

	/**
	 * The node of Eclipse's secure storage ({@code SecurePreferencesFactory.getDefault()}) that holds the remote
	 * store's credentials: {@link #SECURE_ACCESS_KEY} and, encrypted, {@link #SECURE_SECRET_KEY}.
	 */
	public static final String SECURE_REMOTE_NODE = "dev.branchstate.core/remote";

	/** Key of the access key id in {@link #SECURE_REMOTE_NODE}. */
	public static final String SECURE_ACCESS_KEY = "accessKey";

	/** Key of the secret access key in {@link #SECURE_REMOTE_NODE}, stored encrypted. */
	public static final String SECURE_SECRET_KEY = "secretKey";

	private BranchstatePreferences() {
	}
}
