package dev.branchstate.archive.internal;

import java.nio.file.attribute.FileTime;

import dev.branchstate.archive.ArchiveEntry;
import dev.branchstate.archive.EntryType;

/** Mutable per-entry bookkeeping shared by writer and reader (one per central directory record). */
final class EntryRecord {

	final String name;
	/** Length of the name in UTF-8 (the name's length when it is ASCII). */
	final int nameLength;
	/** The name in UTF-8 when it is not ASCII; {@code null} for ASCII names (most), encoded again when needed. */
	private final byte[] nonAsciiName;
	final EntryType type;
	final int mode;
	/** The modification time in 100 ns units since 1601 (NTFS time: the precision the archive keeps). */
	final long mtimeNtfs;
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
	/**
	 * Folder entries: the folder held no name but the archive's when it was written, and its time was old enough
	 * that any later change to its names would have changed it ({@link ZipFormat#EXTRA_LISTED}).
	 */
	boolean listed;
	/**
	 * Reader, once asked to find regions (a save's previous archive): where the next entry (or the central directory)
	 * starts, -1 if this entry cannot be copied as a region.
	 */
	long regionEnd = -1;

	EntryRecord(String name, byte[] nameBytes, EntryType type, int mode, FileTime mtime) {
		this(name, nameBytes, type, mode, ZipFormat.toNtfs(mtime));
	}

	/** @param mtimeNtfs the modification time in 100 ns units since 1601 */
	EntryRecord(String name, byte[] nameBytes, EntryType type, int mode, long mtimeNtfs) {
		this.name = name;
		this.nameLength = nameBytes.length;
		this.nonAsciiName = nameBytes.length == name.length() ? null : nameBytes;
		this.type = type;
		this.mode = mode;
		this.mtimeNtfs = mtimeNtfs;
	}

	/** @return the name in UTF-8 (for ASCII names a new copy: the index keeps only the string) */
	byte[] nameBytes() {
		return nonAsciiName != null ? nonAsciiName : name.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
	}

	FileTime mtime() {
		return ZipFormat.fromNtfs(mtimeNtfs);
	}

	boolean chunked() {
		return chunkCsize != null;
	}

	ArchiveEntry toEntry() {
		return new ArchiveEntry(name, type, size, csize, crc, mode, mtime(), method,
				chunkCsize != null ? chunkCsize.length : chunks);
	}
}
