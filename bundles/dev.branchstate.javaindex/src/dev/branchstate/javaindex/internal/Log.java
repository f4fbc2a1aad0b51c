package dev.branchstate.javaindex.internal;

import org.eclipse.core.runtime.ILog;
import org.eclipse.core.runtime.Status;

/** The one logging helper of the Java index: writes to the Error Log through {@link ILog#of(Class)}. */
final class Log {

	private static final ILog LOG = ILog.of(Log.class);

	private Log() {
	}

	static void error(String message, Throwable cause) {
		LOG.log(Status.error(String.valueOf(message), cause));
	}
}
