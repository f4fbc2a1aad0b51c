package dev.branchstate.archive.internal;

import java.nio.ByteBuffer;

/**
 * A piece of an archive's bytes in submission order: made by a worker (or the calling thread), placed by the
 * {@link ArchiveOutput}, written by whichever thread placed it. A unit's buffers hold its bytes from 0 to their limit.
 */
sealed interface WriteUnit {

	/** @return its place in submission order */
	long seq();

	/** @return the bytes it takes in the archive */
	long length();

	/** @return the buffers it holds until written, or {@code null} */
	Slot slot();

	/** One entry: its local header and data (a directory's header alone, without buffers). */
	record Entry(long seq, EntryRecord record, ByteBuffer bytes, Slot slot) implements WriteUnit {
		@Override
		public long length() {
			return bytes.limit();
		}
	}

	/** Small entries compressed together, written with one write; {@code offsets}: where each starts in it. */
	record Batch(long seq, EntryRecord[] records, int[] offsets, ByteBuffer bytes, Slot slot) implements WriteUnit {
		@Override
		public long length() {
			return bytes.limit();
		}
	}

	/** Unchanged entries adjacent in the previous archive, copied verbatim (local headers and data) as one region. */
	record CopyRun(long seq, EntryRecord[] records, int[] offsets, long from, long length, Slot slot)
			implements WriteUnit {
	}

	/** An unchanged entry: a new local header, its data copied from {@code from} in the previous archive. */
	record Copy(long seq, EntryRecord record, ByteBuffer header, long from, Slot slot) implements WriteUnit {
		@Override
		public long length() {
			return header.limit() + record.csize;
		}
	}

	/** The region of a chunked entry's local header, written once all its frames are (sizes and CRC known then). */
	record ChunkedHeader(long seq, ChunkedEntry entry, long length) implements WriteUnit {
		@Override
		public Slot slot() {
			return null;
		}
	}

	/** One compressed frame of a chunked entry. */
	record Chunk(long seq, ChunkedEntry entry, int index, ByteBuffer bytes, Slot slot) implements WriteUnit {
		@Override
		public long length() {
			return bytes.limit();
		}
	}
}
