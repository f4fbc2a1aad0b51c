package dev.branchstate.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write sharing the previous archive's unchanged entries: its file holds only the change, it reads as the whole
 * tree through the links beside it or joined into one file, and it refuses continued files that are missing or not
 * the ones it was written after.
 */
class SharingTest {

	@TempDir
	Path tmp;

	private WriteResult pack(Path src, Path zip, Path previous) throws Exception {
		try (ArchiveWriter w = Archives.newWriter(zip, WriteOptions.defaults().withChunkSize(256 << 10)
				.withPrevious(previous).withSharing(true))) {
			w.addTree(src, "c/p/", TreeFilter.ALL);
			return w.commit();
		}
	}

	private void assertExtractsTo(Path zip, Path expected, String out) throws Exception {
		try (ArchiveReader r = Archives.open(zip)) {
			r.verify(List.of(""), ExtractOptions.defaults());
			r.extract(tmp.resolve(out), ExtractOptions.defaults().withPrefix("c/p/"));
		}
		TestTrees.assertSameTree(expected, tmp.resolve(out));
	}

	/** A tree packed as a.zip, then with file {@code changed} changed packed as b.zip sharing a.zip's entries. */
	private record Pair(Path src, Path a, Path b) {
	}

	private Pair pair(int files, int bigSize, int changed) throws Exception {
		Path src = TestTrees.sample(tmp.resolve("src"), files, bigSize);
		Path a = tmp.resolve("a.zip");
		pack(src, a, null);
		change(src, changed);
		Path b = tmp.resolve("b.zip");
		pack(src, b, a);
		return new Pair(src, a, b);
	}

	private static void change(Path src, int i) throws Exception {
		Files.write(src.resolve("src/pkg/F" + i + ".java"), TestTrees.noise(30_000, i * 31L));
	}

	@Test
	void sharedWriteHoldsOnlyTheChangeAndReadsAsTheWholeTree() throws Exception {
		Path src = TestTrees.sample(tmp.resolve("src"), 40, 900_000);
		Path a = tmp.resolve("a.zip");
		pack(src, a, null);
		change(src, 7);
		Files.writeString(src.resolve("new.txt"), "new");
		Files.delete(src.resolve("src/pkg/F8.java"));
		Path b = tmp.resolve("b.zip");

		WriteResult res = pack(src, b, a);

		assertThat(Archives.files(b)).containsExactly(tmp.resolve("b.zip.1"), b);
		assertThat(Files.isSameFile(tmp.resolve("b.zip.1"), a)).isTrue();
		assertThat(res.archiveSize()).isEqualTo(Files.size(a) + Files.size(b));
		assertThat(res.writtenBytes()).isEqualTo(Files.size(b));
		// the changed file (30 kB of noise, stored) and the central directory: not the 40 unchanged files again
		assertThat(Files.size(b)).isLessThan(Files.size(a) / 3);
		try (ArchiveReader r = Archives.open(b)) {
			assertThat(res.copiedEntries()).isEqualTo(r.entries().stream().filter(ArchiveEntry::isFile).count() - 2);
		}
		assertExtractsTo(b, src, "out");

		// the previous archive deleted: the link keeps its bytes
		Files.delete(a);
		assertExtractsTo(b, src, "out2");
	}

	@Test
	void theBytesJoinedIntoOneFileAreTheSameArchive() throws Exception {
		Pair pair = pair(20, 600_000, 3);
		Path src = pair.src();
		Path a = pair.a();
		Path b = pair.b();
		Path joined = tmp.resolve("joined.zip");
		try (var in = Archives.openBytes(b); OutputStream out = Files.newOutputStream(joined)) {
			in.transferTo(0, in.size(), java.nio.channels.Channels.newChannel(out));
		}
		assertThat(Files.size(joined)).isEqualTo(Files.size(a) + Files.size(b));
		assertThat(Archives.files(joined)).containsExactly(joined);
		assertExtractsTo(joined, src, "out");
		// and a write sharing the joined file's entries continues it as one file
		change(src, 4);
		Path c = tmp.resolve("c.zip");
		pack(src, c, joined);
		assertThat(Archives.files(c)).containsExactly(tmp.resolve("c.zip.1"), c);
		assertExtractsTo(c, src, "out2");
	}

	@Test
	void aMissingOrReplacedContinuedFileIsRefusedByName() throws Exception {
		Pair pair = pair(10, 300_000, 2);
		Path src = pair.src();
		Path a = pair.a();
		Path b = pair.b();
		Path link = tmp.resolve("b.zip.1");

		// another archive in the link's place
		Path other = tmp.resolve("other.zip");
		change(src, 5);
		pack(src, other, null);
		Files.delete(link);
		Files.createLink(link, other);
		assertThatThrownBy(() -> Archives.open(b)).isInstanceOf(ArchiveException.class)
				.hasMessageContaining(link.toString()).hasMessageContaining("the archive was written after");

		// the same size, its end overwritten
		Files.delete(link);
		Files.copy(a, link);
		try (var ch = Files.newByteChannel(link, StandardOpenOption.WRITE)) {
			ch.position(Files.size(link) - 30).write(java.nio.ByteBuffer.wrap(new byte[] { 1, 2, 3 }));
		}
		assertThatThrownBy(() -> Archives.open(b)).isInstanceOf(ArchiveException.class)
				.hasMessageContaining(link.toString()).hasMessageContaining("not the file the archive was written after");

		// truncated
		Files.delete(link);
		Files.write(link, Files.readAllBytes(a), StandardOpenOption.CREATE_NEW);
		try (var ch = Files.newByteChannel(link, StandardOpenOption.WRITE)) {
			ch.truncate(Files.size(a) - 1);
		}
		assertThatThrownBy(() -> Archives.open(b)).isInstanceOf(ArchiveException.class)
				.hasMessageContaining(link.toString()).hasMessageContaining("bytes");

		// missing
		Files.delete(link);
		assertThatThrownBy(() -> Archives.open(b)).isInstanceOf(ArchiveException.class)
				.hasMessageContaining(link.toString()).hasMessageContaining("missing");
	}

	@Test
	void aChainContinuesOnlyTheFilesThatHoldMuchOfItsEntries() throws Exception {
		Path src = TestTrees.sample(tmp.resolve("src"), 12, 8_000_000); // 2.5 MB compressed
		Path first = tmp.resolve("s0.zip");
		pack(src, first, null);
		Path previous = first;
		for (int i = 1; i <= 10; i++) {
			if (i == 2 || i == 5) {
				change(src, i); // 30 kB of noise; in the other writes nothing changed
			}
			Path next = tmp.resolve("s" + i + ".zip");
			WriteResult res = pack(src, next, previous);
			// the first archive and this one's own file: the changes (60 kB, less than 1/32 of the live bytes) are
			// copied from the file of the write before, not continued with it (ten writes would otherwise have made a
			// chain of eleven files, or the ninth copied everything)
			assertThat(Archives.files(next)).containsExactly(tmp.resolve("s" + i + ".zip.1"), next);
			assertThat(Files.isSameFile(tmp.resolve("s" + i + ".zip.1"), first)).isTrue();
			assertThat(res.writtenBytes()).isLessThan(res.archiveSize() / 5);
			assertExtractsTo(next, src, "out" + i);
			if (previous != first) {
				Files.delete(previous); // nothing but the first archive's bytes is needed by the next
				Files.delete(tmp.resolve(previous.getFileName() + ".1"));
			}
			previous = next;
		}

		// every file rewritten twice: each of these writes shares next to nothing of the archive before and continues
		// none of it; the third, nothing changed, continues the second
		Path base = tmp.resolve("d0.zip");
		pack(src, base, null);
		Path last = base;
		for (int round = 1; round <= 3; round++) {
			if (round < 3) {
				try (var files = Files.walk(src)) {
					for (Path f : files.filter(f -> Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS))
							.toList()) {
						Files.write(f, TestTrees.noise(40_000, f.hashCode() * 7L + round));
					}
				}
			}
			Path next = tmp.resolve("d" + round + ".zip");
			pack(src, next, last);
			assertThat(Archives.files(next)).as("round %d", round).hasSize(round < 3 ? 1 : 2);
			assertExtractsTo(next, src, "d-out" + round);
			last = next;
		}
	}

	@Test
	void aWriteSharingLittleOfThePreviousArchiveContinuesNone() throws Exception {
		Path src = TestTrees.sample(tmp.resolve("src"), 12, 2_000_000);
		Path a = tmp.resolve("a.zip");
		pack(src, a, null);
		// every file but two rewritten (a clean build): what b shares of a is a small part of a's bytes
		try (var files = Files.walk(src.resolve("src/pkg"))) {
			for (Path f : files.filter(f -> Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS)
					&& !f.getFileName().toString().equals("F1.java")).toList()) {
				Files.write(f, TestTrees.noise(20_000, f.hashCode()));
			}
		}
		Path b = tmp.resolve("b.zip");

		WriteResult res = pack(src, b, a);

		assertThat(Archives.files(b)).as("a's dead bytes not kept alive").containsExactly(b);
		assertThat(tmp.resolve("b.zip.1")).doesNotExist();
		assertThat(res.writtenBytes()).isEqualTo(res.archiveSize()).isEqualTo(Files.size(b));
		assertThat(res.copiedEntries()).as("the unchanged files, copied").isPositive();
		Files.delete(a);
		assertExtractsTo(b, src, "out");
	}

	@Test
	void anAbortedSharedWriteLeavesNoLink() throws Exception {
		Path src = TestTrees.sample(tmp.resolve("src"), 5, 100_000);
		Path a = tmp.resolve("a.zip");
		pack(src, a, null);
		Path b = tmp.resolve("b.zip");
		try (ArchiveWriter w = Archives.newWriter(b,
				WriteOptions.defaults().withPrevious(a).withSharing(true))) {
			w.addTree(src, "c/p/", TreeFilter.ALL);
			assertThat(tmp.resolve("b.zip.1")).exists();
			w.abort();
		}
		try (var files = Files.list(tmp)) {
			assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("src", "a.zip");
		}
	}

	@Test
	void continuedFilesAreNamedAfterTheirArchive() {
		assertThat(Archives.continuedBy(Path.of("/s/abc-1.bsa.3"))).contains(Path.of("/s/abc-1.bsa"));
		assertThat(Archives.continuedBy(Path.of("/s/abc-1.bsa"))).isEmpty();
		assertThat(Archives.continuedBy(Path.of("/s/.abc-1.bsa.tmp-3f"))).isEmpty();
	}
}
