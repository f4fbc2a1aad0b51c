package dev.branchstate.archive.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.archive.ArchiveEntry;
import dev.branchstate.archive.ArchiveException;
import dev.branchstate.archive.EntryType;

/**
 * The central directory as written and read back, with the Zip64 fields of entries past 4 GiB: in a sparse file whose
 * directory starts at 9 GiB (the reader reads the end records and the directory, not the entries).
 */
class CentralDirectoryTest {

	@TempDir
	Path tmp;

	private static final long AT = 9L << 30;

	private static EntryRecord record(String name, EntryType type, long offset, long size, long csize, int crc) {
		EntryRecord r = new EntryRecord(name.getBytes(StandardCharsets.UTF_8), type,
				type == EntryType.DIRECTORY ? 0755 : 0644, FileTime.fromMillis(1_700_000_000_123L));
		r.method = type == EntryType.FILE ? ArchiveEntry.METHOD_ZSTD : ArchiveEntry.METHOD_STORED;
		r.localOffset = offset;
		r.size = size;
		r.csize = csize;
		r.crc = crc;
		return r;
	}

	private Path written(List<EntryRecord> records) throws Exception {
		return written("sparse.zip", records);
	}

	private Path written(String name, List<EntryRecord> records) throws Exception {
		Path file = tmp.resolve(name);
		try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
			long[] at = { AT };
			CentralDirectory.write(records, AT, List.of(), b -> {
				while (b.hasRemaining()) {
					at[0] += ch.write(b, at[0]);
				}
			});
		}
		return file;
	}

	@Test
	void entriesPast4GiBReadBackAsWritten() throws Exception {
		List<EntryRecord> records = List.of(record("bin/", EntryType.DIRECTORY, 0, 0, 0, 0),
				record("bin/Small.class", EntryType.FILE, 100, 2_000, 900, 0x1234abcd),
				record("bin/größer.bin", EntryType.FILE, 5L << 30, (4L << 30) + 5, (3L << 30) + 7, 0xcafe0001));
		Path file = written(records);

		CentralDirectory.Parsed parsed;
		try (FileChannel ch = FileChannel.open(file)) {
			parsed = CentralDirectory.read(file, ch);
		}

		assertThat(parsed.offset()).isEqualTo(AT);
		assertThat(parsed.checked()).isTrue();
		assertThat(parsed.records()).hasSize(3);
		for (int i = 0; i < 3; i++) {
			EntryRecord w = records.get(i);
			EntryRecord r = parsed.records()[i];
			assertThat(r.name()).isEqualTo(w.name());
			assertThat(r.type).isEqualTo(w.type);
			assertThat(r.mode).isEqualTo(w.mode);
			assertThat(r.mtime()).isEqualTo(w.mtime());
			assertThat(r.method).isEqualTo(w.method);
			assertThat(r.crc).isEqualTo(w.crc);
			assertThat(r.size).isEqualTo(w.size);
			assertThat(r.csize).isEqualTo(w.csize);
			assertThat(r.localOffset).isEqualTo(w.localOffset);
		}
	}

	@Test
	void aDirectoryWrittenSliceBySliceReadsBackChecked() throws Exception {
		List<EntryRecord> records = new java.util.ArrayList<>();
		records.add(record("bin/", EntryType.DIRECTORY, 0, 0, 0, 0));
		for (int i = 0; i < 30_000; i++) {
			records.add(record(String.format("bin/pkg%03d/SomeLongerClassName%05d.class", i / 1000, i),
					EntryType.FILE, 100L * i, 2_000, 900, i));
		}
		Path file = tmp.resolve("sliced.zip");
		int[] slices = { 0 };
		long written;
		try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
			long[] at = { AT };
			written = CentralDirectory.write(records, AT, List.of(), b -> {
				assertThat(b.remaining()).isLessThanOrEqualTo(CentralDirectory.SLICE + (64 << 10));
				slices[0]++;
				while (b.hasRemaining()) {
					at[0] += ch.write(b, at[0]);
				}
			});
		}
		assertThat(slices[0]).as("slices").isGreaterThan(2);
		assertThat(written).isEqualTo(Files.size(file) - AT);

		CentralDirectory.Parsed parsed;
		try (FileChannel ch = FileChannel.open(file)) {
			parsed = CentralDirectory.read(file, ch); // the CRC-32 in the comment covers every slice
		}
		assertThat(parsed.checked()).isTrue();
		assertThat(parsed.records()).hasSize(records.size());
		assertThat(parsed.records()[29_999].name()).isEqualTo(records.get(29_999).name());
		assertThat(parsed.records()[29_999].localOffset).isEqualTo(100L * 29_998);

		List<String> visited = new java.util.ArrayList<>();
		try (FileChannel ch = FileChannel.open(file)) { // chunks of 64 kB: records cut between chunks
			CentralDirectory.visit(file, ch, 64 << 10, r -> visited.add(r.name() + " " + r.localOffset));
		}
		assertThat(visited).as("visited in the directory's order, as an index holds them")
				.containsExactlyElementsOf(java.util.Arrays.stream(parsed.records())
						.map(r -> r.name() + " " + r.localOffset).toList());
	}

	@Test
	void aChangedByteInTheDirectoryIsRefusedAsDamaged() throws Exception {
		Path file = written(List.of(record("bin/A.class", EntryType.FILE, 0, 10, 10, 1)));
		try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
			ch.write(ByteBuffer.wrap(new byte[] { 'B' }), AT + ZipFormat.CEN_LEN + 4); // the name: bin/B.class
		}
		try (FileChannel ch = FileChannel.open(file)) {
			assertThatThrownBy(() -> CentralDirectory.read(file, ch)).isInstanceOf(ArchiveException.class)
					.hasMessageContaining("damaged central directory").hasMessageContaining(file.toString());
		}
	}

	@Test
	void anEntryBelowAFileOrALinkIsRefusedNamingBoth() throws Exception {
		Path file = written(List.of(record("bin/", EntryType.DIRECTORY, 0, 0, 0, 0),
				record("bin/x", EntryType.SYMLINK, 100, 3, 3, 7), record("bin/a.class", EntryType.FILE, 200, 10, 10, 1),
				record("bin/x/y.class", EntryType.FILE, 300, 10, 10, 1)));
		try (FileChannel ch = FileChannel.open(file)) {
			assertThatThrownBy(() -> CentralDirectory.read(file, ch)).isInstanceOf(ArchiveException.class)
					.hasMessageContaining("entry below a symlink entry 'bin/x'").hasMessageContaining("bin/x/y.class");
		}
	}

	@Test
	void aNameTwiceIsRefused() throws Exception {
		Path file = written(List.of(record("bin/a.class", EntryType.FILE, 0, 10, 10, 1),
				record("bin/b.class", EntryType.FILE, 100, 10, 10, 1), record("bin/a.class", EntryType.FILE, 200, 10, 10, 1)));
		try (FileChannel ch = FileChannel.open(file)) {
			assertThatThrownBy(() -> CentralDirectory.read(file, ch)).isInstanceOf(ArchiveException.class)
					.hasMessageContaining("duplicate entry name").hasMessageContaining("bin/a.class");
		}
	}

	@Test
	void theNameOrderIsSortedAndTheDirectoryOrderKept() throws Exception {
		Path file = written(List.of(record("b/", EntryType.DIRECTORY, 0, 0, 0, 0),
				record("b/z.class", EntryType.FILE, 100, 10, 10, 1), record("a.txt", EntryType.FILE, 200, 10, 10, 1),
				record("b/m.class", EntryType.FILE, 300, 10, 10, 1)));
		CentralDirectory.Parsed parsed;
		try (FileChannel ch = FileChannel.open(file)) {
			parsed = CentralDirectory.read(file, ch);
		}
		assertThat(java.util.Arrays.stream(parsed.records()).map(r -> r.name())).containsExactly("b/", "b/z.class",
				"a.txt", "b/m.class");
		assertThat(parsed.nameOrder()).containsExactly(2, 0, 3, 1);
	}

	private static List<EntryRecord> many(int count, java.util.function.IntFunction<String> name) {
		List<EntryRecord> records = new java.util.ArrayList<>();
		for (int i = 0; i < count; i++) {
			records.add(record(name.apply(i), EntryType.FILE, 100L * i, 10, 10, i));
		}
		return records;
	}

	@Test
	void aDirectoryParsedInSlicesReadsBackInItsOrder() throws Exception {
		int count = 50_000; // several slices of the parse
		Path file = written(many(count, i -> "p" + (i % 7) + "/bin/C" + (count - i) + ".class"));
		CentralDirectory.Parsed parsed;
		try (FileChannel ch = FileChannel.open(file)) {
			parsed = CentralDirectory.read(file, ch);
		}
		assertThat(parsed.records()).hasSize(count);
		for (int i = 0; i < count; i++) {
			assertThat(parsed.records()[i].name()).isEqualTo("p" + (i % 7) + "/bin/C" + (count - i) + ".class");
			assertThat(parsed.records()[i].crc).isEqualTo(i);
		}
		int[] order = parsed.nameOrder();
		for (int k = 1; k < count; k++) {
			assertThat(parsed.records()[order[k - 1]].name()).isLessThan(parsed.records()[order[k]].name());
		}
	}

	@Test
	void ofSeveralDamagedRecordsTheFirstInTheDirectoryIsReported() throws Exception {
		int count = 50_000;
		Path file = written(
				many(count, i -> (i == 12_345 || i == 45_678 ? "bin/../C" : "bin/C") + i + ".class"));
		for (int attempt = 0; attempt < 5; attempt++) { // whichever slice finds its damage first
			try (FileChannel ch = FileChannel.open(file)) {
				assertThatThrownBy(() -> CentralDirectory.read(file, ch)).isInstanceOf(ArchiveException.class)
						.hasMessageContaining("'..' segment").hasMessageContaining("bin/../C12345.class");
			}
		}
	}

	/**
	 * The parse reads the directory a chunk at a time: records across the chunks' ends read back as from one chunk, a
	 * changed byte in a late chunk is refused for the checksum, a damaged record there is named.
	 */
	@Test
	void aDirectoryReadInSmallChunksReadsBackTheSameAndIsChecked() throws Exception {
		int count = 20_000;
		Path file = written(many(count, i -> "p" + (i % 7) + "/bin/d" + "x".repeat(i % 97) + "/C" + i + ".class"));
		CentralDirectory.Parsed whole;
		CentralDirectory.Parsed chunked;
		try (FileChannel ch = FileChannel.open(file)) {
			whole = CentralDirectory.read(file, ch);
			chunked = CentralDirectory.read(file, ch, 4096); // ~30 records a chunk
		}
		assertThat(chunked.checked()).isTrue();
		assertThat(chunked.nameOrder()).isEqualTo(whole.nameOrder());
		for (int i = 0; i < count; i++) {
			assertThat(chunked.records()[i].name()).isEqualTo(whole.records()[i].name());
			assertThat(chunked.records()[i].crc).isEqualTo(i);
			assertThat(chunked.records()[i].localOffset).isEqualTo(100L * i);
		}
		Path damaged = file; // (sparse: not copied)
		try (FileChannel ch = FileChannel.open(damaged, StandardOpenOption.WRITE)) {
			ch.write(ByteBuffer.wrap(new byte[] { 'y' }), ch.size() - 2000); // a name near the end
		}
		try (FileChannel ch = FileChannel.open(damaged)) {
			assertThatThrownBy(() -> CentralDirectory.read(damaged, ch, 4096)).isInstanceOf(ArchiveException.class)
					.hasMessageContaining("damaged central directory");
		}
		Path bad = written("bad.zip", many(count, i -> (i == 17_000 ? "bin/../C" : "bin/C") + i + ".class"));
		try (FileChannel ch = FileChannel.open(bad)) {
			assertThatThrownBy(() -> CentralDirectory.read(bad, ch, 4096)).isInstanceOf(ArchiveException.class)
					.hasMessageContaining("'..' segment").hasMessageContaining("bin/../C17000.class");
		}
	}
}
