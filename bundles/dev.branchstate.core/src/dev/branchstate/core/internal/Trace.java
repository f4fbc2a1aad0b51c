package dev.branchstate.core.internal;

import org.eclipse.osgi.service.debug.DebugOptions;
import org.eclipse.osgi.service.debug.DebugTrace;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.ServiceReference;

/**
 * The core bundle's tracing, through the platform's debug options (the bundle's {@code .options} file lists them;
 * {@code -debug <options file>} turns them on). The lines go to the platform's trace file: the workspace's
 * {@code .metadata/trace.log}, or the file {@code -Dosgi.tracefile} names. Options, under {@code dev.branchstate.core}:
 * <ul>
 * <li>{@value #RESTORE}: each entry a restore will read (and write), found by its plan before it reads anything.</li>
 * <li>{@value #TIMING}: where the wall time of each switch, restore and save went, one line each ({@link Laps}).</li>
 * <li>{@value #BUILD}: each project a build changed (its derived data no longer a stored state's), with the first
 * resource that counted and why.</li>
 * </ul>
 */
public final class Trace {

	/** The restore's plan: the entries it reads (and writes), and how many it found identical on disk. */
	public static final String RESTORE = "/debug/restore"; //$NON-NLS-1$

	/** The wall time of each switch, restore and save, lap by lap. */
	public static final String TIMING = "/debug/timing"; //$NON-NLS-1$

	/** The projects each build changed, with the first resource that counted and why. */
	public static final String BUILD = "/debug/build"; //$NON-NLS-1$

	private static final String BUNDLE = "dev.branchstate.core"; //$NON-NLS-1$
	private static final String DEBUG = "/debug"; //$NON-NLS-1$

	private static DebugOptions options;
	private static DebugTrace trace;

	private Trace() {
	}

	/** @return whether the option (a path under the bundle's name) is on, and the bundle's debug option with it */
	public static boolean on(String option) {
		DebugOptions o = options();
		return o != null && o.isDebugEnabled() && o.getBooleanOption(BUNDLE + DEBUG, false)
				&& o.getBooleanOption(BUNDLE + option, false);
	}

	/** Writes a line to the platform's trace when the option is on. */
	public static void trace(String option, String message) {
		if (on(option)) {
			trace.trace(option, message);
		}
	}

	/** @return the platform's debug options, {@code null} outside a running framework */
	private static synchronized DebugOptions options() {
		if (options == null) {
			Bundle bundle = FrameworkUtil.getBundle(Trace.class);
			BundleContext context = bundle == null ? null : bundle.getBundleContext();
			ServiceReference<DebugOptions> reference = context == null ? null
					: context.getServiceReference(DebugOptions.class);
			options = reference == null ? null : context.getService(reference);
			trace = options == null ? null : options.newDebugTrace(BUNDLE);
		}
		return options;
	}
}
