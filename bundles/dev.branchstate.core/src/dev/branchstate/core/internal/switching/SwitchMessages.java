package dev.branchstate.core.internal.switching;

import org.eclipse.osgi.util.NLS;

/** Translatable strings of switch detection and the switch protocol (keys prefixed {@code Switch_}). */
final class SwitchMessages extends NLS {

	private static final String BUNDLE_NAME = "dev.branchstate.core.internal.switching.messages"; //$NON-NLS-1$

	public static String Switch_headsUnreadable;
	public static String Switch_headsUnwritable;
	public static String Switch_headUnreadable;
	public static String Switch_repositoryUnreadable;
	public static String Switch_noStates;
	public static String Switch_tooManyChanges;
	public static String Switch_noAncestor;
	public static String Switch_jobName;
	public static String Switch_trackJobName;
	public static String Switch_saveJobName;
	public static String Switch_nothingRestored;
	public static String Switch_alreadyOnDisk;
	public static String Switch_withinBranch;
	public static String Switch_autoSwitchOff;
	public static String Switch_notSavedDetached;
	public static String Switch_notSavedPattern;
	public static String Switch_notSavedUnknown;
	public static String Switch_notSavedMovedWhileClosed;
	public static String Switch_canceled;
	public static String Switch_failed;
	public static String Switch_saveFailed;
	public static String Switch_watchFailed;

	static {
		NLS.initializeMessages(BUNDLE_NAME, SwitchMessages.class);
	}

	private SwitchMessages() {
	}
}
