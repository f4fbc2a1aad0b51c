package dev.branchstate.archive.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.github.luben.zstd.Zstd;

import dev.branchstate.archive.ArchiveEntry;
import dev.branchstate.archive.ArchiveException;
import dev.branchstate.archive.EntryType;

/**
 * What a writer's worker makes of small files: each compressed when that saves at least 1/32, stored otherwise, with
 * its size and CRC-32; a file that holds more than its size said when it was listed is refused, naming it.
 */
class EntryCompressorTest {

	@TempDir
	Path tmp;

	private final Path archive = Path.of("state.bsa");
	private final WorkerPool<Compressors> workers = new WorkerPool<>(archive, "archive write", Runnable::run, 1,
			() -> false, () -> new Compressors(3), (t, r) -> t);
	private final EntryCompressor compressor = new EntryCompressor(archive, workers, null, new AtomicLong());

	@AfterEach
	void close() {
		workers.close();
	}

	private static EntryRecord record(String name) {
		return new EntryRecord(name.getBytes(StandardCharsets.UTF_8), EntryType.FILE, 0644, FileTime.fromMillis(0));
	}

	private static int crc(byte[] data) {
		CRC32 crc = new CRC32();
		crc.update(data);
		return (int) crc.getValue();
	}

	@Test
	void aBatchCompressesWhatShrinksAndStoresTheRest() throws Exception {
		byte[] text = "class A { int a; } ".repeat(200).getBytes(StandardCharsets.UTF_8);
		byte[] noise = new byte[300];
		new Random(1).nextBytes(noise);
		byte[] tiny = "tiny".getBytes(StandardCharsets.UTF_8);
		Path[] sources = { Files.write(tmp.resolve("A.class"), text), Files.write(tmp.resolve("n.bin"), noise),
				Files.write(tmp.resolve("t.txt"), tiny) };
		EntryRecord[] recs = { record("p/A.class"), record("p/n.bin"), record("p/t.txt") };

		WriteUnit.Batch batch = compressor.batch(7, recs, sources, new EntryRecord[3], new Slot(64 << 10));

		assertThat(recs).extracting(r -> r.method).containsExactly(ArchiveEntry.METHOD_ZSTD,
				ArchiveEntry.METHOD_STORED, ArchiveEntry.METHOD_STORED);
		assertThat(recs).extracting(r -> r.size).containsExactly((long) text.length, 300L, 4L);
		assertThat(recs).extracting(r -> r.crc).containsExactly(crc(text), crc(noise), crc(tiny));
		assertThat(recs[0].csize).isLessThan(text.length / 10);
		assertThat(recs[1].csize).isEqualTo(300);
		// one after the other, each after its local header; the compressed bytes decode to the file
		int[] at = new int[3];
		for (int i = 1; i < 3; i++) {
			at[i] = at[i - 1] + ZipFormat.localHeaderLength(recs[i - 1], false) + (int) recs[i - 1].csize;
		}
		assertThat(batch.offsets()).containsExactly(at);
		assertThat(batch.length()).isEqualTo(at[2] + ZipFormat.localHeaderLength(recs[2], false) + 4);
		byte[] packed = new byte[(int) recs[0].csize];
		batch.bytes().get(ZipFormat.localHeaderLength(recs[0], false), packed);
		assertThat(Zstd.decompress(packed, text.length)).isEqualTo(text);
	}

	@Test
	void aFileLargerThanItsSlotIsRefusedNamingIt() throws Exception {
		Path grown = Files.write(tmp.resolve("grown.bin"), new byte[1500]);

		assertThatThrownBy(() -> compressor.small(0, record("p/grown.bin"), new Slot(1024), grown))
				.isInstanceOfSatisfying(ArchiveException.class, e -> {
					assertThat(e.getMessage()).contains("file grew while being archived", grown.toString());
					assertThat(e.getEntry()).isEqualTo("p/grown.bin");
				});
	}

	@Test
	void aBatchedFileThatOutgrewTheRoomLeftIsRefusedNamingIt() throws Exception {
		Path first = Files.write(tmp.resolve("first.bin"), new byte[600]);
		Path second = Files.write(tmp.resolve("second.bin"), new byte[600]); // listed smaller: 424 bytes left

		EntryRecord[] recs = { record("p/first.bin"), record("p/second.bin") };

		assertThatThrownBy(() -> compressor.batch(0, recs, new Path[] { first, second }, new EntryRecord[2],
				new Slot(1024)))
				.isInstanceOfSatisfying(ArchiveException.class, e -> {
					assertThat(e.getMessage()).contains(second.toString());
					assertThat(e.getEntry()).isEqualTo("p/second.bin");
				});
	}
}
