package dev.branchstate.archive.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.OptionalInt;
import java.util.zip.CRC32;

import dev.branchstate.archive.ExtractOptions;

/**
 * The one definition of a differential extraction's "already identical": a regular file of the entry's size and
 * modification time (to the 100 ns the engine sets), or, when the time differs or {@code verifyContent} is asked,
 * of the entry's CRC-32: the one its known entry gives ({@link ExtractOptions#withKnownFiles}), else the one read.
 */
final class DiskIdentity {

	private DiskIdentity() {
	}

	/**
	 * @param options its {@link ExtractOptions#verifyContent()} and {@link ExtractOptions#knownFiles()} apply
	 * @param buf     scratch buffer for reading the file when its CRC-32 is needed (any size)
	 */
	static boolean identical(Path file, EntryRecord r, ExtractOptions options, ByteBuffer buf) throws IOException {
		BasicFileAttributes a;
		try {
			a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
		} catch (FileSystemException e) { // absent (NoSuchFileException), or a parent that is no directory
			return false;
		}
		return identical(file.getParent(), file.getFileName().toString(), a, r, options, buf);
	}

	/**
	 * As {@link #identical(Path, EntryRecord, ExtractOptions, ByteBuffer)} for file {@code rel} of folder
	 * {@code root}, whose attributes were already read ({@code null}: nothing there); the path is made only if the
	 * content must be read.
	 */
	static boolean identical(Path root, String rel, BasicFileAttributes a, EntryRecord r, ExtractOptions options,
			ByteBuffer buf) throws IOException {
		if (a == null || !a.isRegularFile() || a.size() != r.size) {
			return false;
		}
		if (!options.verifyContent() && ZipFormat.sameTime(a.lastModifiedTime(), r.mtime())) {
			return true;
		}
		if (!options.verifyContent() && options.knownFiles() != null) {
			OptionalInt known = options.knownFiles().crc32(r.name(), a.size(), a.lastModifiedTime());
			if (known.isPresent()) {
				return known.getAsInt() == r.crc; // (the sizes are equal)
			}
		}
		Path file = root.resolve(rel);
		CRC32 crc = new CRC32();
		try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
			long total = 0;
			while (true) {
				buf.clear();
				int n = ch.read(buf);
				if (n < 0) {
					break;
				}
				total += n;
				if (total > r.size) {
					return false;
				}
				buf.flip();
				crc.update(buf);
			}
			return total == r.size && (int) crc.getValue() == r.crc;
		}
	}
}
