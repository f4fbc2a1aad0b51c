package dev.branchstate.core.internal;

import org.eclipse.core.runtime.ILog;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;

/**
 * The one logging helper of the core bundle: writes to the Error Log through {@link ILog#of(Class)}.
 */
public final class Log {

	private static final ILog LOG = ILog.of(Log.class);

	private Log() {
	}

	public static void log(IStatus status) {
		LOG.log(status);
	}

	public static void error(String message, Throwable cause) {
		LOG.log(Status.error(message, cause));
	}

	public static void warning(String message) {
		LOG.log(Status.warning(message));
	}

	public static void warning(String message, Throwable cause) {
		LOG.log(Status.warning(message, cause));
	}

	public static void info(String message) {
		LOG.log(Status.info(message));
	}
}
