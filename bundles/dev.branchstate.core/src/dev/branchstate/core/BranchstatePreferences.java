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
	 * String, default {@code "*"}: the branches whose states are kept, as glob patterns separated by commas or new
	 * lines (e.g. {@code main, release/*, feature/*}).
	 */
	public static final String BRANCH_PATTERNS = "branchPatterns";

	/** String, default empty: the folder of the state store; empty means the core bundle's state location. */
	public static final String STORE_LOCATION = "storeLocation";

	/** int, default 10240: the disk budget of the state store in MiB; least recently used states go first. */
	public static final String DISK_BUDGET_MB = "diskBudgetMB";

	/** int 1..19, default 3: the zstd compression level of state archives. */
	public static final String COMPRESSION_LEVEL = "compressionLevel";

	/** int, default 0: threads used to write and read state archives; 0 means one per processor. */
	public static final String WORKER_THREADS = "workerThreads";

	/**
	 * String, default empty: project-relative folders saved as derived data besides the resources Eclipse marks
	 * derived, as glob patterns separated by commas or new lines (e.g. {@code target, node_modules}).
	 */
	public static final String DERIVED_FOLDERS = "derivedFolders";

	private BranchstatePreferences() {
	}
}
