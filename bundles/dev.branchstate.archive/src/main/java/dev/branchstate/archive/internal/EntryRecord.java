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
	 * The name in UTF-8, in two parts: its folder (up to its last '/' but a folder entry's own, empty for a name at
	 * the top or a writer's record), then the rest. For the reader both are in a page that holds the names of many
	 * records (128 kB), a folder's bytes once for all the names of the folder that follow it in the page; for the
	 * writer the name's own array, all of it the rest, or the bytes of the previous archive's record of the name. No
	 * string per entry: ~150 bytes of a large state's name (its bytes, a String and an array header) become the bytes
	 * of its last segment; a string is made when one is needed ({@link #name()}).
	 */
	private final byte[] names;
	private final int folderOffset;
	private final int restOffset;
	private final char folderLength;
	/** Length of the name in UTF-8. */
	final int nameLength;
	final EntryType type;
	/** The permission bits (a char: no more than 07777, and a record of 104 bytes). */
	final char mode;
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
	byte chunks = 1;
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
		this(name, 0, 0, 0, name.length, type, mode, ZipFormat.toNtfs(mtime));
	}

	/**
	 * @param names        holds the name in UTF-8 (never changed after): its folder's {@code folderLength} bytes at
	 *                     {@code folderOffset}, the rest at {@code restOffset}
	 * @param nameLength   the bytes of the whole name
	 * @param mtimeNtfs    the modification time in 100 ns units since 1601
	 */
	EntryRecord(byte[] names, int folderOffset, int folderLength, int restOffset, int nameLength, EntryType type,
			int mode, long mtimeNtfs) {
		this.names = names;
		this.folderOffset = folderOffset;
		this.folderLength = (char) folderLength;
		this.restOffset = restOffset;
		this.nameLength = nameLength;
		this.type = type;
		this.mode = (char) mode;
		this.mtimeNtfs = mtimeNtfs;
	}

	/**
	 * @return a new record of the same name as this one, its name's bytes shared with this record's (a writer's record
	 *         for a file the previous archive holds: no array of its own per name)
	 */
	EntryRecord sameName(EntryType type, int mode, long mtimeNtfs) {
		return new EntryRecord(names, folderOffset, folderLength, restOffset, nameLength, type, mode, mtimeNtfs);
	}

	/** @return the name (a new string: for messages, and where a string is needed once) */
	String name() {
		return nameAfter(0);
	}

	/** @return the name after its first {@code bytes} bytes (a prefix the name starts with, in UTF-8) */
	String nameAfter(int bytes) {
		if (bytes >= folderLength) {
			return new String(names, restOffset + bytes - folderLength, nameLength - bytes, StandardCharsets.UTF_8);
		}
		byte[] utf8 = new byte[nameLength - bytes];
		System.arraycopy(names, folderOffset + bytes, utf8, 0, folderLength - bytes);
		System.arraycopy(names, restOffset, utf8, folderLength - bytes, nameLength - folderLength);
		return new String(utf8, StandardCharsets.UTF_8);
	}

	/** @return the name in UTF-8 (a new array) */
	byte[] nameBytes() {
		byte[] utf8 = new byte[nameLength];
		System.arraycopy(names, folderOffset, utf8, 0, folderLength);
		System.arraycopy(names, restOffset, utf8, folderLength, nameLength - folderLength);
		return utf8;
	}

	/** Puts the name's bytes into {@code b} at {@code at}. */
	void putName(ByteBuffer b, int at) {
		b.put(at, names, folderOffset, folderLength);
		b.put(at + folderLength, names, restOffset, nameLength - folderLength);
	}

	/** @return the name's byte at {@code i} */
	byte nameByte(int i) {
		return i < folderLength ? names[folderOffset + i] : names[restOffset + i - folderLength];
	}

	/**
	 * @return whether the two names are known to be in the same folder without looking at them: their folder is the
	 *         same bytes of one page (a writer's record knows no folder: false)
	 */
	boolean sameFolderAs(EntryRecord o) {
		return folderLength > 0 && names == o.names && folderOffset == o.folderOffset
				&& folderLength == o.folderLength;
	}

	/** @return the order of the names as unsigned bytes (UTF-8: the order of their code points) */
	int compareName(EntryRecord o) {
		return compare(names, folderOffset, folderLength, restOffset, nameLength, o.names, o.folderOffset,
				o.folderLength, o.restOffset, o.nameLength);
	}

	/** @return the order of this name and {@code name} (UTF-8) as unsigned bytes */
	int compareName(byte[] name) {
		return compare(names, folderOffset, folderLength, restOffset, nameLength, name, 0, name.length, 0,
				name.length);
	}

	/** @return whether the name is {@code name} (UTF-8) */
	boolean nameIs(byte[] name) {
		return name.length == nameLength && compareName(name) == 0;
	}

	/** @return whether the name starts with {@code prefix} (UTF-8) */
	boolean nameStartsWith(byte[] prefix) {
		int p = prefix.length;
		if (p > nameLength) {
			return false;
		}
		int f = Math.min(p, folderLength);
		return Arrays.equals(names, folderOffset, folderOffset + f, prefix, 0, f)
				&& Arrays.equals(names, restOffset, restOffset + p - f, prefix, f, p);
	}

	/**
	 * Compares two names of two parts each (a folder of {@code aFolder} bytes at {@code aF}, the rest at {@code aR};
	 * {@code aLength} bytes in all) as unsigned bytes.
	 */
	private static int compare(byte[] a, int aF, int aFolder, int aR, int aLength, byte[] b, int bF, int bFolder,
			int bR, int bLength) {
		int i = 0; // bytes of both names compared so far
		int end = Math.min(aLength, bLength);
		while (i < end) {
			// the longest run from i within one part of each name
			int aAt = i < aFolder ? aF + i : aR + i - aFolder;
			int bAt = i < bFolder ? bF + i : bR + i - bFolder;
			int run = Math.min(end, Math.min(i < aFolder ? aFolder : aLength, i < bFolder ? bFolder : bLength)) - i;
			int m = Arrays.mismatch(a, aAt, aAt + run, b, bAt, bAt + run);
			if (m >= 0) {
				return Byte.toUnsignedInt(a[aAt + m]) - Byte.toUnsignedInt(b[bAt + m]);
			}
			i += run;
		}
		return aLength - bLength;
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
