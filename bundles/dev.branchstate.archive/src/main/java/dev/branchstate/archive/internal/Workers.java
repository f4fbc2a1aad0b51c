package dev.branchstate.archive.internal;

import java.util.concurrent.atomic.AtomicInteger;

/** What the writer and the reader share about their worker tasks. */
final class Workers {

	private Workers() {
	}

	/**
	 * Waits until no task counted in {@code active} runs any more: a zstd context must never be closed while a task
	 * uses it (that crashes the JVM). An interrupt stops the wait and stays set.
	 */
	static void awaitIdle(AtomicInteger active) {
		while (active.get() != 0) {
			try {
				Thread.sleep(1);
			} catch (InterruptedException e) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}
}
