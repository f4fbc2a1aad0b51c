package dev.branchstate.jdt.internal;

import org.eclipse.osgi.util.NLS;

/** Translatable strings of the JDT contributor; keys are prefixed with their area ({@code JdtState_}). */
public final class Messages extends NLS {

	private static final String BUNDLE_NAME = "dev.branchstate.jdt.internal.messages"; //$NON-NLS-1$

	public static String JdtState_none;
	public static String JdtState_otherVersion;
	public static String JdtState_unreadable;
	public static String JdtState_unavailable;

	static {
		NLS.initializeMessages(BUNDLE_NAME, Messages.class);
	}

	private Messages() {
	}
}
