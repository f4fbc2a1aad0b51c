package dev.branchstate.archive;

import java.io.InterruptedIOException;

/**
 * An archive operation stopped because it was canceled (through {@link ArchiveProgress#cancel()}, the
 * cancellation supplier of the options, or an interrupt of the calling thread). A canceled write leaves no
 * file under the final name; a canceled extraction leaves no partially written file under a final name, but
 * entries already extracted stay.
 */
public class ArchiveCanceledException extends InterruptedIOException {

	private static final long serialVersionUID = 1L;

	public ArchiveCanceledException(String message) {
		super(message);
	}
}
