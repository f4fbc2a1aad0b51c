package dev.branchstate.archive.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.OptionalInt;

import dev.branchstate.archive.ArchiveException;
import dev.branchstate.archive.EntryType;
import dev.branchstate.archive.KnownContent;

/**
 * What another archive (the state saved or restored last) says of the files of a reader's archive: per file entry
 * of the reader, at its position in the reader's name order, the size, time and CRC-32 of the other archive's file
 * entry of that name. 20 bytes an entry of the reader; the other archive's central directory is read a chunk at a
 * time ({@link CentralDirectory#visit}) and no index of it is kept. An index would hold ~144 bytes an entry: with
 * the restored archive's own, above the 300 bytes an entry a restore may take at a million entries.
 */
final class KnownEntries implements KnownContent {

	private static final long UNKNOWN = -1;

	private final IndexedArchiveReader reader;
	/** per position in the reader's name order: the other archive's file's size, or {@link #UNKNOWN} */
	private final long[] sizes;
	private final long[] times;
	private final int[] crcs;

	private KnownEntries(IndexedArchiveReader reader) {
		this.reader = reader;
		int n = reader.records().length;
		this.sizes = new long[n];
		this.times = new long[n];
		this.crcs = new int[n];
		Arrays.fill(sizes, UNKNOWN);
	}

	/** @see dev.branchstate.archive.ArchiveReader#knownContentOf(Path) */
	static KnownEntries read(IndexedArchiveReader reader, Path other) throws IOException {
		KnownEntries known = new KnownEntries(reader);
		// the other archive was written by a walk of the same folders: its names come in about the reader's order
		IndexedArchiveReader.Cursor cursor = reader.new Cursor();
		String[] duplicate = { null };
		try (ArchiveBytes ch = ArchiveBytes.open(other)) {
			CentralDirectory.visit(other, ch, r -> {
				if (r.type != EntryType.FILE) {
					return;
				}
				int at = cursor.positionOf(r.nameBytes());
				if (at < 0 || reader.recordAt(at).type != EntryType.FILE) {
					return;
				}
				if (known.sizes[at] != UNKNOWN && duplicate[0] == null) {
					duplicate[0] = r.name();
				}
				known.sizes[at] = r.size;
				known.times[at] = r.mtimeNtfs;
				known.crcs[at] = r.crc;
			});
		} catch (ArchiveException e) {
			throw e;
		} catch (IOException | RuntimeException e) {
			throw new ArchiveException("cannot read archive: " + e, other, null, -1, e);
		}
		if (duplicate[0] != null) {
			throw new ArchiveException("duplicate entry name", other, duplicate[0], -1);
		}
		return known;
	}

	@Override
	public OptionalInt crc32(String name, long size, FileTime lastModified) {
		int at = reader.positionOf(name.getBytes(StandardCharsets.UTF_8));
		if (at < 0 || sizes[at] == UNKNOWN || sizes[at] != size || times[at] != ZipFormat.toNtfs(lastModified)) {
			return OptionalInt.empty();
		}
		return OptionalInt.of(crcs[at]);
	}
}
