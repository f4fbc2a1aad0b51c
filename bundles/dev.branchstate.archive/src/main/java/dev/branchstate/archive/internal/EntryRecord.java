package dev.branchstate.archive.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;

import dev.branchstate.archive.ArchiveEntry;
import dev.branchstate.archive.EntryType;

/** Mutable per-entry bookkeeping shared by writer and reader (one per central directory record). */
final class EntryRecord {

	/**
	 * The name in UTF-8, at {@link #nameOffset}: for the reader a slice of an array that holds the names of many
	 * records (pages of 128 kB), for the writer the name's own array. No string per entry: ~100 bytes of a
	 * large state's names (their bytes, a String and an array header each) become their bytes alone; a string is made
	 * when one is needed ({@link #name()}).
	 */
	private final byte[] names;
	private final int nameOffset;
	/** Length of the name in UTF-8. */
	final int nameLength;
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
	 * Reader, once asked to find regions (a save's previous archive): the bytes between the end of this entry's data
	 * and the next entry (or the central directory), -1 if this entry cannot be copied as a region (an int, not the
	 * end's offset: a record of 104 bytes, not 112).
	 */
	int regionGap = -1;

	/** @param name the name in UTF-8, this record's from now on */
	EntryRecord(byte[] name, EntryType type, int mode, FileTime mtime) {
		this(name, 0, name.length, type, mode, ZipFormat.toNtfs(mtime));
	}

	/**
	 * @param names     holds the name in UTF-8 at {@code offset}, {@code length} bytes (never changed after)
	 * @param mtimeNtfs the modification time in 100 ns units since 1601
	 */
	EntryRecord(byte[] names, int offset, int length, EntryType type, int mode, long mtimeNtfs) {
		this.names = names;
		this.nameOffset = offset;
		this.nameLength = length;
		this.type = type;
		this.mode = mode;
		this.mtimeNtfs = mtimeNtfs;
	}

	/** @return the name (a new string: for messages, and where a string is needed once) */
	String name() {
		return new String(names, nameOffset, nameLength, StandardCharsets.UTF_8);
	}

	/** @return the name after its first {@code bytes} bytes (a prefix the name starts with, in UTF-8) */
	String nameAfter(int bytes) {
		return new String(names, nameOffset + bytes, nameLength - bytes, StandardCharsets.UTF_8);
	}

	/** Puts the name's bytes into {@code b} at {@code at}. */
	void putName(ByteBuffer b, int at) {
		b.put(at, names, nameOffset, nameLength);
	}

	/** @return the name's byte at {@code i} */
	byte nameByte(int i) {
		return names[nameOffset + i];
	}

	/** @return the order of the names as unsigned bytes (UTF-8: the order of their code points) */
	int compareName(EntryRecord other) {
		return Arrays.compareUnsigned(names, nameOffset, nameOffset + nameLength, other.names, other.nameOffset,
				other.nameOffset + other.nameLength);
	}

	/** @return the order of this name and {@code name} (UTF-8) as unsigned bytes */
	int compareName(byte[] name) {
		return Arrays.compareUnsigned(names, nameOffset, nameOffset + nameLength, name, 0, name.length);
	}

	/** @return whether the name is {@code name} (UTF-8) */
	boolean nameIs(byte[] name) {
		return Arrays.equals(names, nameOffset, nameOffset + nameLength, name, 0, name.length);
	}

	/** @return whether the name starts with {@code prefix} (UTF-8) */
	boolean nameStartsWith(byte[] prefix) {
		return nameLength >= prefix.length
				&& Arrays.equals(names, nameOffset, nameOffset + prefix.length, prefix, 0, prefix.length);
	}

	FileTime mtime() {
		return ZipFormat.fromNtfs(mtimeNtfs);
	}

	/** @return where the next entry (or the central directory) starts, -1 if this entry cannot be copied as a region */
	long regionEnd() {
		return regionGap < 0 ? -1 : localOffset + ZipFormat.LOC_LEN + nameLength + csize + regionGap;
	}

	boolean chunked() {
		return chunkCsize != null;
	}

	ArchiveEntry toEntry() {
		return new ArchiveEntry(name(), type, size, csize, crc, mode, mtime(), method,
				chunkCsize != null ? chunkCsize.length : chunks);
	}
}
