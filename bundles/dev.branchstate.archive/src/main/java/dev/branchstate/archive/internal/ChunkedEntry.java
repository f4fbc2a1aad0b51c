package dev.branchstate.archive.internal;

import java.nio.channels.FileChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A file or stream a writer cuts in chunks of its chunk size, each compressed by a worker as one zstd frame: what its
 * frames tell once written (sizes, CRC-32s), and the holds that decide when its local header can be written.
 */
final class ChunkedEntry {

	final EntryRecord record;
	final int[] chunkCsize;
	final int[] chunkCrc;
	final int[] chunkLen;
	/** One hold for the submitter plus one per chunk not yet written. */
	final AtomicInteger remaining = new AtomicInteger(1);
	/** Chunks still to be read from {@link #source}; the last read closes it. */
	final AtomicInteger readsLeft = new AtomicInteger();
	/** The file read, or {@code null} for a stream (the calling thread fills the chunks' buffers). */
	FileChannel source;
	volatile long headerPosition;
	volatile int count;
	/** The previous archive's entry of the name, cut as this one is, or {@code null}. */
	private EntryRecord previous;
	/** Where each frame of {@link #previous} starts in the previous archive's bytes. */
	private long[] previousFrameStart;
	/** Frames that took the previous entry's compressed bytes. */
	final AtomicInteger framesTaken = new AtomicInteger();

	/** @param capacity the most frames it may have */
	ChunkedEntry(EntryRecord record, int capacity) {
		this.record = record;
		this.chunkCsize = new int[capacity];
		this.chunkCrc = new int[capacity];
		this.chunkLen = new int[capacity];
	}

	/**
	 * @param p    the previous archive's entry of the name, cut in frames as this one is
	 * @param data where its data starts in the previous archive's bytes
	 */
	void previousFrames(EntryRecord p, long data) {
		long[] start = new long[p.chunkCsize.length];
		long at = data;
		for (int k = 0; k < start.length; k++) {
			start[k] = at;
			at += p.chunkCsize[k] & ZipFormat.MAX32;
		}
		previousFrameStart = start;
		previous = p;
	}

	/**
	 * @return where the previous entry's frame {@code index} starts if it holds {@code len} bytes of CRC-32
	 *         {@code crc}, else -1
	 */
	long previousFrame(int index, int len, int crc) {
		EntryRecord p = previous;
		if (p == null || index >= p.chunkCsize.length || p.chunkCrc[index] != crc
				|| Math.min(p.chunkSize, p.size - (long) index * p.chunkSize) != len) {
			return -1;
		}
		return previousFrameStart[index];
	}

	/** @return the compressed size of the previous entry's frame {@code index} (one {@link #previousFrame} found) */
	int previousFrameSize(int index) {
		return previous.chunkCsize[index];
	}

	/** @return the previous archive's entry whose frames this one may take, for messages */
	EntryRecord previous() {
		return previous;
	}
}
