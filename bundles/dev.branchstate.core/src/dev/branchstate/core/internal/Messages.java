package dev.branchstate.core.internal;

import org.eclipse.osgi.util.NLS;

/**
 * Translatable strings of the core bundle; keys are prefixed with their area ({@code Store_}, {@code Service_},
 * {@code Contributors_}, {@code Build_}, {@code Switch_}, {@code Remote_}, {@code Prefetch_}).
 */
public final class Messages extends NLS {

	private static final String BUNDLE_NAME = "dev.branchstate.core.internal.messages"; //$NON-NLS-1$

	public static String Store_catalogUnreadable;
	public static String Store_cannotWrite;
	public static String Store_cleaningJob;
	public static String Store_leftoverDeleted;
	public static String Store_leftoversNotDeleted;

	public static String Contributors_invalid;
	public static String Contributors_failed;
	public static String Contributors_derivedSave;
	public static String Contributors_derivedRestore;
	public static String Contributors_derivedTracked;
	public static String Contributors_markersSave;
	public static String Contributors_markersRestore;
	public static String Contributors_markersCorrupt;

	public static String Service_noRepository;
	public static String Service_noHead;
	public static String Service_noProjects;
	public static String Service_saving;
	public static String Service_saved;
	public static String Service_savedPartly;
	public static String Service_keptComplete;
	public static String Service_saveFailed;
	public static String Service_saveCanceled;
	public static String Service_contributorSaveFailed;
	public static String Service_noState;
	public static String Service_restoring;
	public static String Service_verifying;
	public static String Service_restored;
	public static String Service_restoredPartly;
	public static String Service_restoreInterrupted;
	public static String Service_restoreNotRecorded;
	public static String Service_restoreRecordNotDeleted;
	public static String Service_restoreNotRecovered;
	public static String Service_recoveryJob;
	public static String Service_preparingJob;
	public static String Service_notBuiltInterrupted;
	public static String Service_restoreFailed;
	public static String Service_restoreCanceled;
	public static String Service_contributorRestoreFailed;
	public static String Service_contributorMissing;
	public static String Service_contributorVersion;
	public static String Service_deleted;
	public static String Service_damagedDeleted;
	public static String Service_retired;
	public static String Service_evicted;
	public static String Service_deleteFailed;
	public static String Service_changedPathsFailed;

	public static String Switch_headsUnreadable;
	public static String Switch_headsUnwritable;
	public static String Switch_headUnreadable;
	public static String Switch_repositoryUnreadable;
	public static String Switch_noStates;
	public static String Switch_tooManyChanges;
	public static String Remote_notConfigured;
	public static String Remote_noLocalState;
	public static String Remote_publishFailed;
	public static String Remote_publishNotHead;
	public static String Remote_fetching;
	public static String Remote_fetchingBytes;
	public static String Remote_fetched;
	public static String Remote_prefetched;
	public static String Remote_deadline;
	public static String Remote_givenUp;
	public static String Remote_failed;
	public static String Remote_checkSettings;
	public static String Remote_checking;
	public static String Switch_remoteMissed;
	public static String Switch_noAncestor;
	public static String Switch_jobName;
	public static String Switch_trackJobName;
	public static String Switch_saveAheadJobName;
	public static String Switch_saveJobName;
	public static String Switch_nothingRestored;
	public static String Switch_alreadyOnDisk;
	public static String Switch_withinBranch;
	public static String Switch_autoSwitchOff;
	public static String Switch_projectRemoved;
	public static String Switch_notSavedDetached;
	public static String Switch_notSavedPattern;
	public static String Switch_notSavedUnknown;
	public static String Switch_notSavedMovedWhileClosed;
	public static String Switch_canceled;
	public static String Switch_failed;
	public static String Service_notBuilt;
	public static String Service_gitCommandRunning;
	public static String Service_leftOut;
	public static String Service_leftOutProject;
	public static String Service_readsIncomplete;
	public static String Service_referencesUnknown;
	public static String Service_builtAgainstOther;
	public static String Service_notRestoredBuiltAgainst;
	public static String Service_notRestoredGone;

	public static String Build_unknown;
	public static String Build_notBuilt;
	public static String Build_pending;
	public static String Build_internalsUnavailable;
	public static String Build_cleanJobName;

	public static String Switch_watchFailed;

	public static String Prefetch_jobName;
	public static String Prefetch_failed;
	public static String Prefetch_budgetExhausted;

	static {
		NLS.initializeMessages(BUNDLE_NAME, Messages.class);
	}

	private Messages() {
	}
}
