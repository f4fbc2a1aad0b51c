package dev.branchstate.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicityTest {

	@TempDir
	Path tmp;

	private long filesIn(Path dir) throws IOException {
		try (Stream<Path> s = Files.list(dir)) {
			return s.count();
		}
	}

	@Test
	void closeWithoutCommitLeavesNothing() throws Exception {
		Path dir = Files.createDirectories(tmp.resolve("store"));
		Path src = TestTrees.sample(tmp.resolve("src"), 20, 500_000);
		try (ArchiveWriter w = Archives.newWriter(dir.resolve("s.zip"), WriteOptions.defaults())) {
			w.addTree(src, "", TreeFilter.ALL);
		}
		assertThat(filesIn(dir)).isZero();
	}

	@Test
	void cancelDuringWriteThrowsAndLeavesNothingAndKeepsThePreviousArchive() throws Exception {
		Path dir = Files.createDirectories(tmp.resolve("store"));
		Path target = dir.resolve("s.zip");
		Files.writeString(target, "old");
		Path src = TestTrees.sample(tmp.resolve("src"), 200, 2_000_000);
		ArchiveProgress progress = new ArchiveProgress();
		AtomicInteger polls = new AtomicInteger();
		try (ArchiveWriter w = Archives.newWriter(target, WriteOptions.defaults().withProgress(progress)
				.withChunkSize(64 << 10).withCancel(() -> polls.incrementAndGet() > 50))) {
			assertThatThrownBy(() -> {
				w.addTree(src, "", TreeFilter.ALL);
				w.commit();
			}).isInstanceOf(ArchiveCanceledException.class);
		}
		assertThat(Files.readString(target)).isEqualTo("old");
		assertThat(filesIn(dir)).isEqualTo(1);
	}

	@Test
	void failingSourceAbortsTheArchive() throws Exception {
		Path dir = Files.createDirectories(tmp.resolve("store"));
		InputStream failing = new InputStream() {
			int n;

			@Override
			public int read() throws IOException {
				if (n++ > 100_000) {
					throw new IOException("disk on fire");
				}
				return 1;
			}
		};
		try (ArchiveWriter w = Archives.newWriter(dir.resolve("s.zip"), WriteOptions.defaults())) {
			w.addBytes("a", new byte[10], 0644, FileTime.fromMillis(0));
			assertThatThrownBy(() -> w.addStream("b", failing, 0644, FileTime.fromMillis(0)))
					.hasMessageContaining("disk on fire");
			assertThatThrownBy(w::commit).isInstanceOf(IllegalStateException.class);
		}
		assertThat(filesIn(dir)).isZero();
	}

	@Test
	void progressCountsAndInvalidNamesAreRejected() throws Exception {
		Path src = TestTrees.sample(tmp.resolve("src"), 20, 500_000);
		ArchiveProgress p = new ArchiveProgress();
		try (ArchiveWriter w = Archives.newWriter(tmp.resolve("s.zip"), WriteOptions.defaults().withProgress(p))) {
			w.addTree(src, "", TreeFilter.ALL);
			w.commit();
		}
		assertThat(p.entriesDone()).isEqualTo(p.entriesTotal()).isPositive();
		assertThat(p.bytesDone()).isEqualTo(p.bytesTotal()).isPositive();
		try (ArchiveWriter w = Archives.newWriter(tmp.resolve("t.zip"), WriteOptions.defaults())) {
			for (String bad : new String[] { "../x", "/abs", "a//b", "a/./b", "a/..", "nul\0", "" }) {
				assertThatThrownBy(() -> w.addBytes(bad, new byte[1], 0644, FileTime.fromMillis(0)))
						.isInstanceOf(IllegalArgumentException.class);
			}
		}
		assertThat(tmp.resolve("t.zip")).doesNotExist();
	}

	/**
	 * A name given twice is refused where it is given, naming it, however it came (a name, a tree's walk), and only
	 * then: the writer keeps no set of every name, so a tree that overlaps no earlier add is not checked name by
	 * name. The writer stays usable, and its archive reads back.
	 */
	@Test
	void aNameGivenTwiceIsRefusedWhereItIsGiven() throws Exception {
		Path src = TestTrees.sample(tmp.resolve("src"), 20, 500_000);
		String taken;
		try (Stream<Path> files = Files.walk(src)) {
			taken = src.relativize(files.filter(Files::isRegularFile).sorted().toList().get(7)).toString()
					.replace('\\', '/');
		}
		Path zip = tmp.resolve("s.zip");
		FileTime time = FileTime.fromMillis(0);
		try (ArchiveWriter w = Archives.newWriter(zip, WriteOptions.defaults())) {
			w.addBytes("a/" + taken, new byte[10], 0644, time);
			assertThatThrownBy(() -> w.addBytes("a/" + taken, new byte[1], 0644, time))
					.isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a/" + taken);
			assertThatThrownBy(() -> w.addTree(src, "a/", TreeFilter.ALL)) // a name added before, in the tree
					.isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a/" + taken);
			w.addTree(src, "b/", TreeFilter.ALL);
			assertThatThrownBy(() -> w.addBytes("b/" + taken, new byte[1], 0644, time)) // in a tree added before
					.isInstanceOf(IllegalArgumentException.class).hasMessageContaining("b/" + taken);
			assertThatThrownBy(() -> w.addTree(src.resolve(taken.substring(0, taken.indexOf('/'))),
					"b/" + taken.substring(0, taken.indexOf('/') + 1), TreeFilter.ALL)) // a tree inside that tree
					.isInstanceOf(IllegalArgumentException.class).hasMessageContaining("b/");
			w.addBytes("b.txt", new byte[1], 0644, time); // beside the tree, not in it
			w.addTree(src, "c/", TreeFilter.ALL);
			w.commit();
		}
		try (ArchiveReader r = Archives.open(zip)) {
			assertThat(r.entry("c/" + taken)).isPresent();
			assertThat(r.entry("b/" + taken)).isPresent();
			assertThat(r.entry("b.txt")).isPresent();
		}
	}

	/** @return s.zip of the tree, in 64 KiB chunks: many tasks, so that a cancel meets some running */
	private Path packedInSmallChunks(Path src) throws IOException {
		Path zip = tmp.resolve("s.zip");
		try (ArchiveWriter w = Archives.newWriter(zip, WriteOptions.defaults().withChunkSize(64 << 10))) {
			w.addTree(src, "", TreeFilter.ALL);
			w.commit();
		}
		return zip;
	}

	@Test
	void canceledExtractionLeavesNoPartialFileUnderAFinalName() throws Exception {
		Path src = TestTrees.sample(tmp.resolve("src"), 100, 3_000_000);
		Path zip = packedInSmallChunks(src);
		Path out = tmp.resolve("out");
		AtomicInteger polls = new AtomicInteger();
		try (ArchiveReader r = Archives.open(zip)) {
			assertThatThrownBy(() -> r.extract(out,
					ExtractOptions.defaults().withCancel(() -> polls.incrementAndGet() > 60)))
					.isInstanceOf(ArchiveCanceledException.class);
		}
		try (Stream<Path> s = Files.walk(out)) {
			s.filter(Files::isRegularFile).forEach(p -> {
				assertThat(p.getFileName().toString()).doesNotStartWith(".bs-");
				try {
					assertThat(Files.mismatch(p, src.resolve(out.relativize(p).toString()))).isEqualTo(-1);
				} catch (IOException e) {
					throw new java.io.UncheckedIOException(e);
				}
			});
		}
	}

	@Test
	void noWorkerThreadOutlivesACanceledWriteOrExtraction() throws Exception {
		Path src = TestTrees.sample(tmp.resolve("src"), 100, 2_000_000);
		Path zip = packedInSmallChunks(src);
		AtomicInteger polls = new AtomicInteger();
		try (ArchiveWriter w = Archives.newWriter(tmp.resolve("t.zip"), WriteOptions.defaults()
				.withChunkSize(64 << 10).withCancel(() -> polls.incrementAndGet() > 50))) {
			assertThatThrownBy(() -> {
				w.addTree(src, "", TreeFilter.ALL);
				w.commit();
			}).isInstanceOf(ArchiveCanceledException.class);
		}
		polls.set(0);
		try (ArchiveReader r = Archives.open(zip)) {
			assertThatThrownBy(() -> r.extract(tmp.resolve("out"),
					ExtractOptions.defaults().withCancel(() -> polls.incrementAndGet() > 60)))
					.isInstanceOf(ArchiveCanceledException.class);
		}
		// the engine's own pools are shut down at the end of the run: their idle threads end soon after
		long deadline = System.nanoTime() + 10_000_000_000L;
		while (!engineThreads().isEmpty() && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
		assertThat(engineThreads()).isEmpty();
	}

	private static java.util.List<String> engineThreads() {
		return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
				.filter(n -> n.startsWith("branchstate-")).toList();
	}

	@Test
	void interruptedReadCancelsButLeavesTheReaderUsable() throws Exception {
		Path src = TestTrees.sample(tmp.resolve("src"), 10, 300_000);
		Path zip = tmp.resolve("s.zip");
		try (ArchiveWriter w = Archives.newWriter(zip, WriteOptions.defaults())) {
			w.addTree(src, "", TreeFilter.ALL);
			w.commit();
		}
		try (ArchiveReader r = Archives.open(zip)) {
			Thread.currentThread().interrupt();
			try {
				assertThatThrownBy(() -> r.readAllBytes("src/pkg/F3.java", 1 << 20))
						.isInstanceOf(ArchiveCanceledException.class);
			} finally {
				Thread.interrupted();
			}
			assertThat(r.readAllBytes("src/pkg/F3.java", 1 << 20))
					.isEqualTo(Files.readAllBytes(src.resolve("src/pkg/F3.java")));
			r.extract(tmp.resolve("out"), ExtractOptions.defaults());
		}
		TestTrees.assertSameTree(src, tmp.resolve("out"));
	}
}
