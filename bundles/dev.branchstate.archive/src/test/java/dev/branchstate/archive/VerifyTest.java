package dev.branchstate.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ArchiveReader#verify}: what a restore runs before it writes anything. */
class VerifyTest {

	@TempDir
	Path tmp;

	/** Random bytes: zstd keeps them in raw blocks, so they appear verbatim in the archive and can be damaged. */
	private static byte[] noise(int size, long seed) {
		byte[] b = new byte[size];
		new Random(seed).nextBytes(b);
		return b;
	}

	private Path archive(byte[] small, byte[] chunked) throws Exception {
		Path src = Files.createDirectories(tmp.resolve("src"));
		Files.createDirectories(src.resolve("a"));
		Files.createDirectories(src.resolve("b"));
		Files.write(src.resolve("a/small.bin"), small);
		Files.write(src.resolve("b/chunked.bin"), chunked);
		Files.writeString(src.resolve("b/text.txt"), "hello ".repeat(1000));
		Files.createSymbolicLink(src.resolve("b/link"), src.getFileSystem().getPath("text.txt"));
		Path zip = tmp.resolve("state.zip");
		try (ArchiveWriter w = Archives.newWriter(zip, WriteOptions.defaults().withChunkSize(64 << 10))) {
			w.addTree(src, "", TreeFilter.ALL);
			w.commit();
		}
		return zip;
	}

	/** Flips one byte of the archive inside the first place where {@code content} (a sample of an entry) occurs. */
	private static void damage(Path zip, byte[] content, int from) throws Exception {
		byte[] bytes = Files.readAllBytes(zip);
		byte[] sample = java.util.Arrays.copyOfRange(content, from, from + 32);
		for (int i = 0; i + sample.length <= bytes.length; i++) {
			if (java.util.Arrays.equals(bytes, i, i + sample.length, sample, 0, sample.length)) {
				bytes[i + 16] ^= 0x40;
				Files.write(zip, bytes);
				return;
			}
		}
		throw new AssertionError("sample not found in the archive");
	}

	@Test
	void anIntactArchivePassesAndNothingIsWritten() throws Exception {
		Path zip = archive(noise(4000, 1), noise(300_000, 2));
		try (Stream<Path> before = Files.walk(tmp)) {
			long files = before.count();
			try (ArchiveReader r = Archives.open(zip)) {
				r.verify(List.of(""), ExtractOptions.defaults());
				r.verify(List.of("a/", "b/"), ExtractOptions.defaults().withWorkers(1));
			}
			try (Stream<Path> after = Files.walk(tmp)) {
				assertThat(after.count()).isEqualTo(files);
			}
		}
	}

	@Test
	void aDamagedSmallEntryIsNamedAndOnlyTheVerifiedPrefixesCount() throws Exception {
		byte[] small = noise(4000, 3);
		Path zip = archive(small, noise(300_000, 4));
		damage(zip, small, 2000);
		try (ArchiveReader r = Archives.open(zip)) {
			assertThatThrownBy(() -> r.verify(List.of(""), ExtractOptions.defaults()))
					.isInstanceOfSatisfying(ArchiveException.class, e -> {
						assertThat(e.getEntry()).isEqualTo("a/small.bin");
						assertThat(e.getArchive()).isEqualTo(zip);
						assertThat(e.getMessage()).contains("a/small.bin");
					});
			r.verify(List.of("b/"), ExtractOptions.defaults());
		}
	}

	@Test
	void aDamagedFrameOfAChunkedEntryIsFound() throws Exception {
		byte[] chunked = noise(300_000, 5);
		Path zip = archive(noise(4000, 6), chunked);
		damage(zip, chunked, 200_000); // in the fourth 64 KiB frame
		try (ArchiveReader r = Archives.open(zip)) {
			assertThatThrownBy(() -> r.verify(List.of("b/"), ExtractOptions.defaults()))
					.isInstanceOfSatisfying(ArchiveException.class,
							e -> assertThat(e.getEntry()).isEqualTo("b/chunked.bin"));
			r.verify(List.of("a/"), ExtractOptions.defaults());
		}
	}

	@Test
	void cancelStopsVerification() throws Exception {
		Path zip = archive(noise(4000, 7), noise(300_000, 8));
		try (ArchiveReader r = Archives.open(zip)) {
			assertThatThrownBy(() -> r.verify(List.of(""), ExtractOptions.defaults().withCancel(() -> true)))
					.isInstanceOf(ArchiveCanceledException.class);
		}
	}
}
