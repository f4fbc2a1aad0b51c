package dev.branchstate.archive;

import java.nio.file.attribute.FileTime;

/**
 * One entry of a state archive, as listed by the central directory.
 *
 * @param name the entry name: UTF-8, {@code /}-separated, relative, directories end with {@code /}
 * @param type file, directory or symbolic link
 * @param size the uncompressed size in bytes
 * @param compressedSize the size of the stored data in bytes
 * @param crc32 the CRC-32 of the uncompressed data
 * @param mode the POSIX permission bits (e.g. {@code 0644}), without the file type bits
 * @param lastModified the modification time (100 ns precision when written by this engine)
 * @param method the ZIP compression method: 0 stored, 93 zstd
 * @param chunks the number of independent zstd frames the data is cut into (1 unless chunked; 0 if unknown)
 */
public record ArchiveEntry(String name, EntryType type, long size, long compressedSize, int crc32, int mode,
		FileTime lastModified, int method, int chunks) {

	/** ZIP method "stored". */
	public static final int METHOD_STORED = 0;
	/** ZIP method zstd (APPNOTE 6.3.7). */
	public static final int METHOD_ZSTD = 93;

	public boolean isDirectory() {
		return type == EntryType.DIRECTORY;
	}

	public boolean isSymbolicLink() {
		return type == EntryType.SYMLINK;
	}

	public boolean isFile() {
		return type == EntryType.FILE;
	}
}
