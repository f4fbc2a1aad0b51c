package dev.branchstate.archive.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;

import dev.branchstate.archive.ArchiveEntry;
import dev.branchstate.archive.ArchiveException;
import dev.branchstate.archive.EntryType;

/**
 * The previous state's archive, as a writer reuses it ({@link dev.branchstate.archive.WriteOptions#previous()}): the
 * entry of each name the walk reaches, what of an entry a file may reuse (the entry itself, its bytes copied, its
 * compressed bytes), reads of its bytes, and the files of it the new archive continues.
 *
 * <p>
 * Continued files ({@link Continuation}): the new archive's bytes start with the previous archive's first files,
 * linked beside the target, and entries of an unchanged file that lie in them are shared, not written. The
 * {@linkplain #base() base} is where the new archive's own file starts in its bytes.
 */
final class PreviousArchive implements AutoCloseable {

	private final IndexedArchiveReader reader;
	/** Finds the entry of a file the walk reaches, mostly the one after the entry found before. */
	private final IndexedArchiveReader.Cursor entries;
	private List<ArchiveBytes.Continued> continued;
	private List<Path> links;
	private long base;

	private PreviousArchive(IndexedArchiveReader reader, List<Path> links) throws IOException {
		this.reader = reader;
		this.entries = reader.new Cursor();
		this.links = links;
		this.continued = links.isEmpty() ? List.of() : reader.bytes().asContinued().subList(0, links.size());
		this.base = links.isEmpty() ? 0 : reader.bytes().starts()[links.size()];
	}

	/**
	 * Opens the previous archive and, if {@code sharing}, links the files the new one continues beside
	 * {@code target}.
	 *
	 * @return it, or {@code null} when there is no such file
	 */
	static PreviousArchive open(Path previous, Path target, boolean sharing) throws IOException {
		if (previous == null || !Files.isRegularFile(previous)) {
			return null;
		}
		IndexedArchiveReader reader = IndexedArchiveReader.open(previous);
		List<Path> linked = List.of();
		try {
			reader.findRegions();
			linked = sharing ? linkContinued(reader, target) : List.of();
			return new PreviousArchive(reader, linked);
		} catch (IOException | RuntimeException e) {
			deleteLinks(linked);
			reader.close();
			throw e;
		}
	}

	/**
	 * Links the files of the previous archive the new one continues beside the target: the first ones, as many as
	 * {@link Continuation} says.
	 *
	 * @return the links made, in order; empty when the entries are to be copied instead (see {@link Continuation}),
	 *         or on a file system that cannot link
	 */
	private static List<Path> linkContinued(IndexedArchiveReader prev, Path target) throws IOException {
		List<Path> files = prev.bytes().files();
		long[] starts = prev.bytes().starts();
		long[] sizes = new long[files.size()];
		for (int i = 0; i < sizes.length; i++) {
			sizes[i] = starts[i + 1] - starts[i];
		}
		int keep = Continuation.filesToContinue(sizes, prev.liveBytesByFile());
		List<Path> made = new ArrayList<>();
		try {
			for (int i = 0; i < keep; i++) {
				Path link = ArchiveBytes.linkName(target, i + 1);
				Files.deleteIfExists(link);
				Files.createLink(link, files.get(i));
				made.add(link);
			}
			return made;
		} catch (IOException | UnsupportedOperationException | SecurityException e) {
			deleteLinks(made);
			return List.of();
		}
	}

	private static void deleteLinks(List<Path> made) {
		for (Path link : made) {
			try {
				Files.deleteIfExists(link);
			} catch (IOException e) {
				// a leftover link: the store's orphan clean-up deletes it
			}
		}
	}

	/** @return where the new archive's own file starts in its bytes: the size of the files it continues, or 0 */
	long base() {
		return base;
	}

	/** @return the files the new archive continues, for its central directory's record of them */
	List<ArchiveBytes.Continued> continued() {
		return continued;
	}

	/** @return how many files the new archive continues (linked beside it) */
	int linkCount() {
		return links.size();
	}

	/** @return the entry of the file {@code utf8} names, or {@code null} */
	EntryRecord find(byte[] utf8) throws IOException {
		return entries.find(utf8);
	}

	/**
	 * Puts the new record {@code r} of the name last {@linkplain #find found} in its entry's place in the index, so
	 * that a save that writes most files again does not hold every record twice (see
	 * {@link IndexedArchiveReader.Cursor#supersedeFound}).
	 */
	void supersedeFound(EntryRecord r) {
		entries.supersedeFound(r);
	}

	/**
	 * @return whether the entry {@code p} of an unchanged file ({@linkplain #unchanged}) lies in the files the new
	 *         archive continues: the record itself is then the new archive's (every field its central directory
	 *         takes from it is the same: name, method, time, CRC-32, sizes, offset, frame table)
	 */
	boolean mayShare(EntryRecord p, long size, int mode, FileTime mtime) {
		return p.localOffset < base && unchanged(p, size, mode & 07777, ZipFormat.toNtfs(mtime));
	}

	/** @return whether the entry {@code p} holds a file of this size, mode and time, in a method a writer copies */
	static boolean unchanged(EntryRecord p, long size, int mode, long mtimeNtfs) {
		return p.type == EntryType.FILE && p.size == size && p.mode == mode && p.mtimeNtfs == mtimeNtfs
				&& (p.method == ArchiveEntry.METHOD_STORED || p.method == ArchiveEntry.METHOD_ZSTD);
	}

	/**
	 * @return whether the entry {@code p} may hold the bytes of a file of this size whose time (or mode) is not its
	 *         own: one frame of a method a writer copies
	 */
	static boolean mayHoldTheSameBytes(EntryRecord p, long size) {
		return p.type == EntryType.FILE && p.size == size && !p.chunked()
				&& (p.method == ArchiveEntry.METHOD_STORED || p.method == ArchiveEntry.METHOD_ZSTD);
	}

	/**
	 * @return whether the frames of the entry {@code p} are cut where a writer of {@code chunkSize} cuts a file's
	 *         chunks, so that a chunk of the same bytes as one of them may take its compressed bytes
	 */
	static boolean framesMayBeTheSame(EntryRecord p, int chunkSize) {
		return p.type == EntryType.FILE && p.chunked() && p.chunkSize == chunkSize
				&& p.method == ArchiveEntry.METHOD_ZSTD;
	}

	/** @return where the data of entry {@code p} starts in the previous archive's bytes (its local header checked) */
	long dataOffset(EntryRecord p) throws IOException {
		return reader.dataOffset(p);
	}

	/** Reads the compressed bytes of entry {@code p} into {@code packed} at {@code at}. */
	void readData(EntryRecord p, ByteBuffer packed, int at) throws IOException {
		read(packed.duplicate().limit(at + (int) p.csize).position(at), dataOffset(p), p);
	}

	/**
	 * Fills {@code into} (from its position to its limit) from the previous archive's bytes at {@code from}, bytes of
	 * entry {@code p}.
	 */
	void read(ByteBuffer into, long from, EntryRecord p) throws IOException {
		int start = into.position();
		while (into.hasRemaining()) {
			if (reader.read(into, from + into.position() - start) < 0) {
				throw new ArchiveException("previous archive truncated", reader.path(), p.name(), from);
			}
		}
	}

	/**
	 * @return whether the new archive, whose entries are {@code records}, shares less than half of the bytes of the
	 *         files it continues (most files changed since: a clean build, times that changed); it should then copy
	 *         what it shares and {@link #detach}, or the state would keep the dead bytes of the previous one alive
	 */
	boolean littleShared(List<EntryRecord> records) {
		if (base == 0) {
			return false;
		}
		long shared = 0;
		for (EntryRecord r : records) {
			if (r.localOffset < base) {
				shared += ZipFormat.LOC_LEN + r.nameLength + r.csize;
			}
		}
		return 2 * shared < base;
	}

	/** Stops continuing the previous archive's files (its shared entries were copied): deletes the links. */
	void detach() {
		base = 0;
		continued = List.of();
		deleteLinks(links);
		links = List.of();
	}

	/** Deletes the links of an aborted write. */
	void deleteLinks() {
		deleteLinks(links);
	}

	@Override
	public void close() {
		reader.close();
	}
}
