package dev.branchstate.ui.internal;

import org.eclipse.core.runtime.ILog;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;

/** The one way the UI writes to the Error Log. */
public final class UiLog {

	private static final ILog LOG = ILog.of(UiLog.class);

	private UiLog() {
	}

	public static void log(IStatus status) {
		LOG.log(status);
	}

	public static void error(String message, Throwable e) {
		LOG.log(Status.error(message, e));
	}

	public static void warning(String message, Throwable e) {
		LOG.log(Status.warning(message, e));
	}
}
