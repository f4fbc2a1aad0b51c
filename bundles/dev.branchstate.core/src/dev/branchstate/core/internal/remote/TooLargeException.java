package dev.branchstate.core.internal.remote;

import java.io.IOException;

/**
 * A published state refused before its archive is downloaded because the archive is larger than the caller accepts
 * (the store's disk budget, or what is left of the prefetch's): the store answered as it should, this is no failure
 * of the store.
 */
public final class TooLargeException extends IOException {

	private static final long serialVersionUID = 1L;

	public TooLargeException(String message) {
		super(message);
	}
}
