package dev.branchstate.ui.internal;

import org.eclipse.osgi.util.NLS;

/** The strings of the Branchstate UI ({@code messages.properties} beside this class), area-prefixed. */
public final class Messages extends NLS {

	private static final String BUNDLE_NAME = "dev.branchstate.ui.internal.messages"; //$NON-NLS-1$

	public static String Service_notAvailable;

	public static String Log_listenerFailed;

	public static String Command_saveTitle;
	public static String Command_restoreTitle;
	public static String Command_noProject;
	public static String Command_notInRepository;
	public static String Command_noStates;

	public static String Dialog_restoreTitle;
	public static String Dialog_restoreMessage;
	public static String Dialog_restoreButton;

	public static String Job_save;
	public static String Job_restore;

	public static String Notice_restoredTitle;
	public static String Notice_restored;
	public static String Notice_rebuilt;
	public static String Notice_rebuiltOne;
	public static String Notice_nothingRebuilt;
	public static String Notice_failedTitle;
	public static String Notice_failed;
	public static String Notice_partial;
	public static String Notice_saved;
	public static String Notice_savedTitle;
	public static String Notice_savedManually;
	public static String Notice_notSavedTitle;
	public static String Notice_remoteGivenUpTitle;
	public static String Notice_noReason;

	public static String Format_bytes;
	public static String Format_kb;
	public static String Format_mb;
	public static String Format_gb;
	public static String Format_tb;
	public static String Format_ratio;
	public static String Format_none;
	public static String Format_millis;
	public static String Format_seconds;
	public static String Format_minutes;

	public static String Pref_description;
	public static String Pref_autoSwitch;
	public static String Pref_saveAhead;
	public static String Pref_saveAheadTip;
	public static String Pref_branchPatterns;
	public static String Pref_branchPatternsTip;
	public static String Pref_branchPatternsEmpty;
	public static String Pref_derivedFolders;
	public static String Pref_derivedFoldersTip;
	public static String Pref_derivedFolderNotRelative;
	public static String Pref_patternInvalid;
	public static String Pref_storeLocation;
	public static String Pref_storeLocationTip;
	public static String Pref_storeLocationHint;
	public static String Pref_storeLocationInvalid;
	public static String Pref_storeLocationNotAbsolute;
	public static String Pref_storeLocationNotFolder;
	public static String Pref_storeLocationNotWritable;
	public static String Pref_storeLocationNotCreatable;
	public static String Pref_diskBudget;
	public static String Pref_diskBudgetTooSmall;
	public static String Pref_compressionLevel;
	public static String Pref_compressionLevelTip;
	public static String Pref_compressionLevelRange;
	public static String Pref_workerThreads;
	public static String Pref_workerThreadsTip;
	public static String Pref_workerThreadsRange;
	public static String PrefRemote_description;
	public static String View_columnStored;
	public static String View_storedLocal;
	public static String View_storedRemote;
	public static String View_storedBoth;
	public static String View_remoteRowTooltip;
	public static String PrefRemote_endpoint;
	public static String PrefRemote_endpointInvalid;
	public static String PrefRemote_bucket;
	public static String PrefRemote_bucketInvalid;
	public static String PrefRemote_prefix;
	public static String PrefRemote_region;
	public static String PrefRemote_pathStyle;
	public static String PrefRemote_publicKey;
	public static String PrefRemote_publicKeyTip;
	public static String PrefRemote_publicKeyInvalid;
	public static String PrefRemote_fetchOnSwitch;
	public static String PrefRemote_timeout;
	public static String PrefRemote_deadline;
	public static String PrefRemote_prefetch;
	public static String PrefRemote_prefetchRefs;
	public static String PrefRemote_prefetchRefsTip;
	public static String PrefRemote_prefetchBudget;
	public static String PrefRemote_prefetchPerDay;
	public static String PrefRemote_credentials;
	public static String PrefRemote_credentialsHint;
	public static String PrefRemote_accessKey;
	public static String PrefRemote_secretKey;
	public static String PrefRemote_secretKeySet;
	public static String PrefRemote_storageUnavailable;
	public static String PrefRemote_test;
	public static String PrefRemote_testJob;
	public static String PrefRemote_testing;
	public static String PrefRemote_testListed;
	public static String PrefRemote_testListedOne;
	public static String PrefRemote_testValid;
	public static String PrefRemote_testInvalid;
	public static String PrefRemote_testNoKey;
	public static String PrefRemote_testEmpty;
	public static String PrefRemote_testFailed;

	public static String Prop_description;
	public static String Prop_projectSpecific;
	public static String Prop_configureWorkspace;
	public static String Prop_workspaceOnlyNote;
	public static String Prop_saveFailed;

	public static String View_loadJob;
	public static String View_columnBranches;
	public static String View_columnCommit;
	public static String View_columnMessage;
	public static String View_columnCreated;
	public static String View_columnLastUsed;
	public static String View_columnSize;
	public static String View_columnRatio;
	public static String View_columnContributors;
	public static String View_detached;
	public static String View_fromRemote;
	public static String View_headMarker;
	public static String View_commitMissing;
	public static String View_contributor;
	public static String View_rowTooltip;
	public static String View_repositoryError;
	public static String View_repositoryNoStates;
	public static String View_repositoryHeadSaved;
	public static String View_repositoryHeadNotSaved;
	public static String View_noRepositories;
	public static String View_summary;
	public static String View_prefetchSummary;
	public static String View_oneState;
	public static String View_states;
	public static String View_oneRepository;
	public static String View_repositories;
	public static String View_storedPrefetched;
	public static String View_restore;
	public static String View_restoreTip;
	public static String View_delete;
	public static String View_deleteTip;
	public static String View_deleteTitle;
	public static String View_deleteQuestion;
	public static String View_deleteQuestionMany;
	public static String View_deleteJob;
	public static String View_deleteFailed;
	public static String View_copyPath;
	public static String View_openFolder;
	public static String View_openFolderFailed;
	public static String View_refresh;
	public static String View_refreshTip;

	static {
		NLS.initializeMessages(BUNDLE_NAME, Messages.class);
	}

	private Messages() {
	}
}
