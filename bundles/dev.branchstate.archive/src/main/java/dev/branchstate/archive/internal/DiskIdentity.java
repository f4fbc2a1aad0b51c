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
import java.util.Optional;
import java.util.function.Function;
import java.util.zip.CRC32;

import dev.branchstate.archive.ArchiveEntry;
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
		return switch (byStat(a, r, options.verifyContent())) {
			case IDENTICAL -> true;
			case DIFFERS -> false;
			case CONTENT_DECIDES -> byContent(root, rel, a, r, options.verifyContent() ? null : options.knownFiles(),
					buf);
		};
	}

	/** What the stat of a file says. */
	enum Stat {
		/** of the entry's size and time (and the content is not to be checked) */
		IDENTICAL,
		/** absent, not a regular file, or of another size */
		DIFFERS,
		/** of the entry's size, but of another time (or the content is to be checked) */
		CONTENT_DECIDES
	}

	/** @param a the file's attributes, {@code null} when nothing is there */
	static Stat byStat(BasicFileAttributes a, EntryRecord r, boolean verifyContent) {
		if (a == null || !a.isRegularFile() || a.size() != r.size) {
			return Stat.DIFFERS;
		}
		return !verifyContent && ZipFormat.sameTime(a.lastModifiedTime(), r.mtime()) ? Stat.IDENTICAL
				: Stat.CONTENT_DECIDES;
	}

	/**
	 * For a file of the entry's size ({@link Stat#CONTENT_DECIDES}): whether its content's CRC-32 is the entry's,
	 * as the known files say when they describe it at its size and time, else as read.
	 *
	 * @param known {@link ExtractOptions#knownFiles()}, or {@code null} to read the file in any case
	 */
	static boolean byContent(Path root, String rel, BasicFileAttributes a, EntryRecord r,
			Function<String, Optional<ArchiveEntry>> known, ByteBuffer buf) throws IOException {
		if (known != null) {
			Optional<ArchiveEntry> k = known.apply(r.name());
			if (k.isPresent() && k.get().isFile() && k.get().size() == a.size()
					&& ZipFormat.sameTime(a.lastModifiedTime(), k.get().lastModified())) {
				return k.get().crc32() == r.crc; // (the sizes are equal)
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
