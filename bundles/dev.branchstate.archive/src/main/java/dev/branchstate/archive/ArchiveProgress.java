package dev.branchstate.archive;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Progress counters and a cancel flag shared between the engine and its caller. Engine threads only bump the
 * counters (cheap atomic adds); the caller polls them from its own thread, e.g. to report to a progress monitor,
 * and may call {@link #cancel()} from any thread. One instance per operation.
 */
public final class ArchiveProgress {

	private final AtomicLong entriesDone = new AtomicLong();
	private final AtomicLong bytesDone = new AtomicLong();
	private final AtomicLong entriesTotal = new AtomicLong();
	private final AtomicLong bytesTotal = new AtomicLong();
	private volatile boolean canceled;

	/** @return entries fully processed (written, copied, extracted or skipped) so far */
	public long entriesDone() {
		return entriesDone.get();
	}

	/** @return uncompressed bytes processed so far */
	public long bytesDone() {
		return bytesDone.get();
	}

	/** @return entries known so far to be processed (grows while a writer walks a tree) */
	public long entriesTotal() {
		return entriesTotal.get();
	}

	/** @return uncompressed bytes known so far to be processed */
	public long bytesTotal() {
		return bytesTotal.get();
	}

	/** Requests cancellation; the operation ends with {@link ArchiveCanceledException} soon after. */
	public void cancel() {
		canceled = true;
	}

	public boolean isCanceled() {
		return canceled;
	}

	/** Called by the engine when an entry is done. */
	public void entryDone(long bytes) {
		entriesDone.incrementAndGet();
		if (bytes != 0) {
			bytesDone.addAndGet(bytes);
		}
	}

	/** Called by the engine for partial progress inside an entry (e.g. one chunk). */
	public void bytesDone(long bytes) {
		bytesDone.addAndGet(bytes);
	}

	/** Called by the engine when work becomes known. */
	public void planned(long entries, long bytes) {
		entriesTotal.addAndGet(entries);
		bytesTotal.addAndGet(bytes);
	}
}
