package dev.branchstate.core.internal.switching;

import org.eclipse.core.runtime.ILog;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;

/** Error Log entries of the switch protocol. */
final class SwitchLog {

	private static final ILog LOG = ILog.of(SwitchLog.class);

	private SwitchLog() {
	}

	static void log(IStatus status) {
		LOG.log(status);
	}

	static void warning(String message, Throwable cause) {
		LOG.log(Status.warning(message, cause));
	}
}
