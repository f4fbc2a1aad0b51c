package dev.branchstate.archive.internal;

import java.util.Arrays;

/**
 * Where the parse of a central directory puts its records' names ({@link EntryRecord}): pages of {@link #PAGE} bytes,
 * in each a folder's bytes once for all the names of that folder that follow each other in it (an archive holds its
 * entries folder by folder), then the rest of each name. Not thread-safe: one per slice of the parse.
 */
final class NamePages {

	/**
	 * The bytes of a page: well below the size from which G1 gives an array regions of its own (half a region, 512 kB
	 * at the least), whose unused rest no other object can use.
	 */
	static final int PAGE = 128 << 10;

	/** Bytes of the names still to place: the most the pages may still need. */
	private long left;
	private byte[] page = new byte[0];
	private int at;
	private int lastFolder;
	private int lastFolderLength = -1;

	// where the name placed last is
	private int folderOffset;
	private int folderLength;
	private int restOffset;

	/** @param left the bytes of all the names to place */
	NamePages(long left) {
		this.left = left;
	}

	/** Places the name of {@code n} bytes at {@code off} in {@code src}; {@link #record} then makes its record. */
	void place(byte[] src, int off, int n) {
		int folder = folderLength(src, off, n);
		boolean known = folder == lastFolderLength
				&& Arrays.equals(page, lastFolder, lastFolder + folder, src, off, off + folder);
		if (at + (known ? n - folder : n) > page.length) {
			page = new byte[(int) Math.max(n, Math.min(left, PAGE))];
			at = 0;
			known = false;
		}
		if (!known) {
			System.arraycopy(src, off, page, at, folder);
			lastFolder = at;
			lastFolderLength = folder;
			at += folder;
		}
		folderOffset = lastFolder;
		folderLength = folder;
		restOffset = at;
		System.arraycopy(src, off + folder, page, at, n - folder);
		at += n - folder;
		left -= n;
	}

	/** @return a record of the name placed last, of {@code n} bytes */
	EntryRecord record(int n, dev.branchstate.archive.EntryType type, int mode, long mtimeNtfs) {
		return new EntryRecord(page, folderOffset, folderLength, restOffset, n, type, mode, mtimeNtfs);
	}

	/** @return the bytes of the name's folder: up to its last '/' before its last segment (a folder's own excluded) */
	static int folderLength(byte[] name, int off, int n) {
		for (int i = n - 2; i >= 0; i--) {
			if (name[off + i] == '/') {
				return i + 1;
			}
		}
		return 0;
	}
}
