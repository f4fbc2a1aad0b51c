package dev.branchstate.jdt.internal;

import org.eclipse.osgi.util.NLS;

/**
 * Translatable strings of the JDT contributors; keys are prefixed with their area ({@code JdtState_},
 * {@code JdtIndex_}).
 */
public final class Messages extends NLS {

	private static final String BUNDLE_NAME = "dev.branchstate.jdt.internal.messages"; //$NON-NLS-1$

	public static String JdtState_none;
	public static String JdtState_notBuilt;
	public static String JdtState_otherVersion;
	public static String JdtState_unreadable;
	public static String JdtState_unavailable;
	public static String JdtIndex_none;
	public static String JdtIndex_busy;
	public static String JdtIndex_otherVersion;
	public static String JdtIndex_unreadable;
	public static String JdtIndex_configurationChanged;
	public static String JdtIndex_unavailable;

	static {
		NLS.initializeMessages(BUNDLE_NAME, Messages.class);
	}

	private Messages() {
	}
}
