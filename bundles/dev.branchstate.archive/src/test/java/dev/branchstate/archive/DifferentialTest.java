package dev.branchstate.archive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DifferentialTest {

	@TempDir
	Path tmp;

	private Path pack(Path src, Path zip, Path previous) throws Exception {
		write(src, zip, previous);
		return zip;
	}

	/** Writes {@code src} as {@code c/p/} in 256 kB frames, differential against {@code previous} if not null. */
	private static WriteResult write(Path src, Path zip, Path previous) throws Exception {
		try (ArchiveWriter w = Archives.newWriter(zip,
				WriteOptions.defaults().withChunkSize(256 << 10).withPrevious(previous))) {
			w.addTree(src, "c/p/", TreeFilter.ALL);
			return w.commit();
		}
	}

	@Test
	void differentialExtractRewritesOnlyChangedFilesAndMirrorRemovesStrays() throws Exception {
		Path src = TestTrees.sample(tmp.resolve("src"), 50, 600_000);
		Path zip = pack(src, tmp.resolve("a.zip"), null);
		Path out = tmp.resolve("out");
		try (ArchiveReader r = Archives.open(zip)) {
			r.extract(out, ExtractOptions.defaults().withPrefix("c/p/"));
			FileTime untouched = Files.getLastModifiedTime(out.resolve("src/pkg/F3.java"));
			// same size, different content and time
			Files.writeString(out.resolve("src/pkg/F2.java"), Files.readString(out.resolve("src/pkg/F2.java")).toUpperCase());
			// same content, different time: CRC decides, file not rewritten
			Files.setLastModifiedTime(out.resolve("src/pkg/F4.java"), FileTime.fromMillis(5));
			// longer on disk than in the archive: rewritten in place, then cut to size
			Files.writeString(out.resolve("src/pkg/F5.java"), "x".repeat(20_000));
			Files.delete(out.resolve("src/pkg/sub/big.dat"));
			Files.writeString(out.resolve("stray.txt"), "x");
			Files.createDirectories(out.resolve("strays/deep"));
			Files.writeString(out.resolve("strays/deep/f"), "x");
			Files.delete(out.resolve("src/link"));
			Files.writeString(out.resolve("src/link"), "not a link");

			ExtractResult res = r.extract(out,
					ExtractOptions.defaults().withPrefix("c/p/").withDifferential(true).withMirror(true));

			assertThat(res.written()).containsExactlyInAnyOrder("src/pkg/F2.java", "src/pkg/F5.java",
					"src/pkg/sub/big.dat", "src/link");
			assertThat(res.removed()).containsExactlyInAnyOrder("stray.txt", "strays/");
			assertThat(res.skipped()).isEqualTo(r.entries("c/p/").stream().filter(e -> !e.isDirectory()).count() - 4);
			assertThat(Files.getLastModifiedTime(out.resolve("src/pkg/F3.java"))).isEqualTo(untouched);
			assertThat(Files.getLastModifiedTime(out.resolve("src/pkg/F4.java"))).isEqualTo(FileTime.fromMillis(5));
			Files.setLastModifiedTime(out.resolve("src/pkg/F4.java"), Files.getLastModifiedTime(src.resolve("src/pkg/F4.java")));
			TestTrees.assertSameTree(src, out);
		}
	}

	@Test
	void withoutTheMirrorOnlyAFolderTheExtractionMadeIsGivenItsEntrysTime() throws Exception {
		Path src = TestTrees.sample(tmp.resolve("src"), 20, 100_000);
		Path zip = pack(src, tmp.resolve("a.zip"), null);
		Path out = tmp.resolve("out");
		try (ArchiveReader r = Archives.open(zip)) {
			r.extract(out, ExtractOptions.defaults().withPrefix("c/p/"));
			FileTime archived = Files.getLastModifiedTime(out.resolve("src/pkg/sub"));
			assertThat(archived).isEqualTo(r.entry("c/p/src/pkg/sub/").orElseThrow().lastModified());
			FileTime other = FileTime.fromMillis(archived.toMillis() - 86_400_000L);
			Files.setLastModifiedTime(out.resolve("src/pkg"), other);

			// nothing differs: no folder's metadata is changed
			ExtractOptions differential = ExtractOptions.defaults().withPrefix("c/p/").withDifferential(true);
			assertThat(r.extract(out, differential).written()).isEmpty();
			assertThat(Files.getLastModifiedTime(out.resolve("src/pkg"))).isEqualTo(other);

			// a file written into src/pkg, whose sub-folder was deleted: the folder made again gets its entry's time;
			// src/pkg keeps its own (without the mirror it may hold more than the archive's names)
			Files.writeString(out.resolve("src/pkg/F2.java"), "changed");
			try (var paths = Files.walk(out.resolve("src/pkg/sub"))) {
				for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
					Files.delete(p);
				}
			}
			Files.setLastModifiedTime(out.resolve("src/pkg"), other);
			assertThat(r.extract(out, differential).written()).contains("src/pkg/F2.java", "src/pkg/sub/");
			assertThat(Files.getLastModifiedTime(out.resolve("src/pkg/sub"))).isEqualTo(archived);
			assertThat(Files.getLastModifiedTime(out.resolve("src/pkg"))).isNotEqualTo(
					r.entry("c/p/src/pkg/").orElseThrow().lastModified());
			TestTrees.assertSameTree(src, out);
		}
	}

	@Test
	void verifyContentCatchesSameSizeSameTimeEdits() throws Exception {
		Path src = TestTrees.sample(tmp.resolve("src"), 5, 100_000);
		Path zip = pack(src, tmp.resolve("a.zip"), null);
		Path out = tmp.resolve("out");
		try (ArchiveReader r = Archives.open(zip)) {
			r.extract(out, ExtractOptions.defaults().withPrefix("c/p/"));
			Path f = out.resolve("src/pkg/F3.java");
			FileTime t = Files.getLastModifiedTime(f);
			Files.writeString(f, Files.readString(f).replace('C', 'D'));
			Files.setLastModifiedTime(f, t);
			assertThat(r.extract(out, ExtractOptions.defaults().withPrefix("c/p/").withDifferential(true)).written())
					.isEmpty();
			assertThat(r.extract(out,
					ExtractOptions.defaults().withPrefix("c/p/").withDifferential(true).withVerifyContent(true))
					.written()).containsExactly("src/pkg/F3.java");
			TestTrees.assertSameTree(src, out);
		}
	}

	@Test
	void differentialSaveCopiesUnchangedEntriesAndRecompressesChangedOnes() throws Exception {
		Path src = TestTrees.sample(tmp.resolve("src"), 40, 900_000);
		Path first = pack(src, tmp.resolve("a.zip"), null);
		Files.writeString(src.resolve("src/pkg/F7.java"), "changed");
		Files.writeString(src.resolve("new.txt"), "new");
		Files.delete(src.resolve("src/pkg/F8.java"));
		Path second = tmp.resolve("b.zip");
		WriteResult res = write(src, second, first);
		long files;
		try (ArchiveReader r = Archives.open(second)) {
			files = r.entries().stream().filter(ArchiveEntry::isFile).count();
			r.extract(tmp.resolve("out"), ExtractOptions.defaults().withPrefix("c/p/"));
		}
		assertThat(res.copiedEntries()).isEqualTo(files - 2);
		TestTrees.assertSameTree(src, tmp.resolve("out"));
	}

	/**
	 * A build that writes every file again, most with the same bytes, gives them new times: a differential save
	 * reads them, and takes the previous entry's compressed bytes for those whose CRC-32 and size are the entry's
	 * instead of compressing them again; a file cut in frames takes those of its frames whose bytes are the same
	 * (all of them, or those before a change near its end). Each keeps its new time; what changed is compressed.
	 */
	@Test
	void aFileWrittenAgainWithTheSameBytesTakesThePreviousEntrysCompressedBytes() throws Exception {
		Path src = TestTrees.sample(tmp.resolve("src"), 40, 900_000); // big.dat: 4 frames of 256 kB
		Path big2 = Files.copy(src.resolve("src/pkg/sub/big.dat"), src.resolve("src/pkg/sub/big2.dat"));
		Path first = pack(src, tmp.resolve("a.zip"), null);
		FileTime rebuilt = FileTime.fromMillis(System.currentTimeMillis() + 3_600_000);
		try (java.util.stream.Stream<Path> walk = Files.walk(src)) {
			for (Path file : walk.filter(f -> Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)).toList()) {
				Files.write(file, Files.readAllBytes(file));
				Files.setLastModifiedTime(file, rebuilt);
			}
		}
		Path changed = src.resolve("src/pkg/F7.java");
		Files.writeString(changed, Files.readString(changed).toUpperCase());
		Files.setLastModifiedTime(changed, rebuilt);
		byte[] tail = Files.readAllBytes(big2);
		tail[tail.length - 10] ^= 1; // in its last frame
		Files.write(big2, tail);
		Files.setLastModifiedTime(big2, rebuilt);

		Path second = tmp.resolve("b.zip");
		WriteResult res = write(src, second, first);

		try (ArchiveReader before = Archives.open(first); ArchiveReader after = Archives.open(second)) {
			long files = after.entries().stream().filter(ArchiveEntry::isFile).count();
			assertThat(res.copiedEntries()).as("all files but the two changed ones").isEqualTo(files - 2);
			for (String name : List.of("c/p/src/pkg/F3.java", "c/p/src/pkg/sub/big.dat")) {
				ArchiveEntry now = after.entry(name).orElseThrow();
				assertThat(now.lastModified()).isEqualTo(rebuilt);
				assertThat(now.compressedSize()).isEqualTo(before.entry(name).orElseThrow().compressedSize());
			}
			assertThat(after.entry("c/p/src/pkg/sub/big.dat").orElseThrow().chunks()).isEqualTo(4);
			after.verify(List.of(""), ExtractOptions.defaults());
			after.extract(tmp.resolve("out"), ExtractOptions.defaults().withPrefix("c/p/"));
		}
		TestTrees.assertSameTree(src, tmp.resolve("out"));
	}
}
