package dev.branchstate.archive.internal;

import java.nio.file.attribute.FileTime;

import dev.branchstate.archive.ArchiveEntry;
import dev.branchstate.archive.EntryType;

/** Mutable per-entry bookkeeping shared by writer and reader (one per central directory record). */
final class EntryRecord {

	final String name;
	final byte[] nameBytes;
	final EntryType type;
	final int mode;
	final FileTime mtime;
	int method;
	int crc;
	long size;
	long csize;
	long localOffset;
	/** Reader: the general-purpose flags and the DOS date and time of the central record, which the local header repeats. */
	int flags;
	int dosTime;
	/** Chunked entries: nominal uncompressed chunk size and per-chunk compressed size and CRC; else null. */
	int chunkSize;
	int[] chunkCsize;
	int[] chunkCrc;
	/** Reader: number of frames known (1 unless chunked; 0 unknown = foreign). */
	int chunks = 1;
	/** Reader: where the next entry (or the central directory) starts, -1 if this entry cannot be copied as a region. */
	long regionEnd = -1;

	EntryRecord(String name, byte[] nameBytes, EntryType type, int mode, FileTime mtime) {
		this.name = name;
		this.nameBytes = nameBytes;
		this.type = type;
		this.mode = mode;
		this.mtime = mtime;
	}

	boolean chunked() {
		return chunkCsize != null;
	}

	ArchiveEntry toEntry() {
		return new ArchiveEntry(name, type, size, csize, crc, mode, mtime, method,
				chunkCsize != null ? chunkCsize.length : chunks);
	}
}
