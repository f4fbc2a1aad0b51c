package dev.branchstate.javaindex.internal;

import org.eclipse.osgi.util.NLS;

/** Translatable strings of the Java index; keys are prefixed with their area ({@code Index_}). */
public final class Messages extends NLS {

	private static final String BUNDLE_NAME = "dev.branchstate.javaindex.internal.messages"; //$NON-NLS-1$

	public static String Index_jobName;
	public static String Index_indexing;
	public static String Index_failed;
	public static String Index_restoreFailed;
	public static String Index_saveFailed;
	public static String Index_otherLayout;
	public static String Index_serviceMissing;
	public static String Index_dumpFailed;

	static {
		NLS.initializeMessages(BUNDLE_NAME, Messages.class);
	}

	private Messages() {
	}
}
