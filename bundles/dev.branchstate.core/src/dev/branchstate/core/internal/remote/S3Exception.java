package dev.branchstate.core.internal.remote;

import java.io.IOException;

/**
 * An S3 request that the store answered with an error, or whose answer broke the protocol: names the object, the
 * HTTP status and the store's error code and message.
 */
final class S3Exception extends IOException {

	private static final long serialVersionUID = 1L;

	private final int status;
	private final String code;

	S3Exception(String what, int status, String code, String message) {
		super(what + ": " + describe(status, code, message)); //$NON-NLS-1$
		this.status = status;
		this.code = code;
	}

	private static String describe(int status, String code, String message) {
		String hint = switch (status) {
		case 401, 403 -> " (check the access key and secret key, and that they may use the bucket)"; //$NON-NLS-1$
		default -> ""; //$NON-NLS-1$
		};
		return "HTTP " + status + (code.isEmpty() ? "" : ' ' + code) //$NON-NLS-1$ //$NON-NLS-2$
				+ (message.isEmpty() ? "" : ": " + message) + hint; //$NON-NLS-1$ //$NON-NLS-2$
	}

	int status() {
		return status;
	}

	String code() {
		return code;
	}

	boolean notFound() {
		return status == 404;
	}

	/** @return whether a conditional write found the object there already */
	boolean exists() {
		return status == 412 || status == 409 && "ConditionalRequestConflict".equals(code); //$NON-NLS-1$
	}

	boolean retryable() {
		return status >= 500 || status == 429;
	}
}
