package dev.branchstate.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RoundTripTest {

	@TempDir
	Path tmp;

	@Test
	void treeRoundTripsWithModesTimesLinksAndEmptyDirectories() throws Exception {
		Path src = TestTrees.sample(tmp.resolve("src"), 120, 1_300_000);
		Path zip = tmp.resolve("state.zip");
		WriteResult wr;
		try (ArchiveWriter w = Archives.newWriter(zip, WriteOptions.defaults().withChunkSize(256 << 10).withWorkers(3))) {
			w.addTree(src, "", TreeFilter.ALL);
			wr = w.commit();
		}
		assertThat(wr.archiveSize()).isEqualTo(Files.size(zip));
		try (ArchiveReader r = Archives.open(zip)) {
			ArchiveEntry big = r.entry("src/pkg/sub/big.dat").orElseThrow();
			assertThat(big.chunks()).isEqualTo(5);
			assertThat(big.method()).isEqualTo(ArchiveEntry.METHOD_ZSTD);
			assertThat(r.entry("src/noise.bin").orElseThrow().method()).isEqualTo(ArchiveEntry.METHOD_STORED);
			assertThat(r.entry("src/pkg/F50.java").orElseThrow().method()).isEqualTo(ArchiveEntry.METHOD_ZSTD);
			assertThat(r.entry("src/link").orElseThrow().isSymbolicLink()).isTrue();
			assertThat(r.entry("empty/").orElseThrow().isDirectory()).isTrue();
			assertThat(r.entry("run.sh").orElseThrow().mode()).isEqualTo(0750);
			Path out = tmp.resolve("out");
			ExtractResult res = r.extract(out, ExtractOptions.defaults().withWorkers(2).withBuffers(3));
			TestTrees.assertSameTree(src, out);
			assertThat(res.written()).contains("src/pkg/sub/big.dat", "src/link", "run.sh");
			assertThat(res.bytesWritten()).isEqualTo(
					r.entries().stream().filter(ArchiveEntry::isFile).mapToLong(ArchiveEntry::size).sum());
			assertThat(wr.uncompressedBytes()).isEqualTo(r.entries().stream().mapToLong(ArchiveEntry::size).sum());
		}
	}

	@Test
	void prefixExtractionStripsThePrefixAndStreamsOneEntry() throws Exception {
		Path src = TestTrees.sample(tmp.resolve("src"), 10, 300_000);
		Path zip = tmp.resolve("state.zip");
		byte[] mem = "in memory".getBytes(StandardCharsets.UTF_8);
		byte[] streamed = new byte[3_000_000];
		for (int i = 0; i < streamed.length; i++) {
			streamed[i] = (byte) (i * 31 >> 7);
		}
		WriteResult result;
		try (ArchiveWriter w = Archives.newWriter(zip, WriteOptions.defaults().withChunkSize(1 << 20))) {
			w.addTree(src, "markers/p1/", TreeFilter.ALL);
			w.addTree(src, "derived/p1/", TreeFilter.of(List.of("**.java"), List.of("empty")));
			w.addBytes("meta/info.txt", mem, 0640, FileTime.fromMillis(123_000));
			w.addStream("meta/big.bin", new ByteArrayInputStream(streamed), 0600, FileTime.fromMillis(5000));
			w.addChannel("meta/ch.bin", Channels.newChannel(new ByteArrayInputStream(mem)), 0644,
					FileTime.fromMillis(5000));
			w.addFile(src.resolve("run.sh"), "meta/run.sh");
			w.addDirectory("meta/dir", 0700, FileTime.fromMillis(0));
			result = w.commit();
		}
		try (ArchiveReader r = Archives.open(zip)) {
			assertThat(result.uncompressedBytes()).as("every way of adding counts its bytes")
					.isEqualTo(r.entries().stream().mapToLong(ArchiveEntry::size).sum());
			assertThat(r.entries("derived/p1/")).allMatch(e -> e.isDirectory() || e.name().endsWith(".java"));
			assertThat(r.entry("derived/p1/empty/")).isEmpty();
			assertThat(r.fileCount("meta/")).as("files only: the folder meta/dir/ is not one").isEqualTo(4);
			assertThat(r.fileCount("derived/p1/")).isEqualTo(
					r.entries("derived/p1/").stream().filter(ArchiveEntry::isFile).count()).isPositive();
			assertThat(r.fileCount("none/")).isZero();
			assertThat(r.entry("meta/big.bin").orElseThrow().chunks()).isEqualTo(3);
			assertThat(r.readAllBytes("meta/info.txt", 100)).isEqualTo(mem);
			assertThat(r.readAllBytes("meta/ch.bin", 100)).isEqualTo(mem);
			try (InputStream in = r.openStream("meta/big.bin")) {
				assertThat(in.readAllBytes()).isEqualTo(streamed);
			}
			assertThat(r.entry("meta/info.txt").orElseThrow().lastModified()).isEqualTo(FileTime.fromMillis(123_000));
			Path out = tmp.resolve("p1");
			r.extract(out, ExtractOptions.defaults().withPrefix("markers/p1/"));
			TestTrees.assertSameTree(src, out);
			assertThatThrownBy(() -> r.readAllBytes("meta/big.bin", 10)).isInstanceOf(ArchiveException.class);
		}
	}

	@Test
	void callerExecutorIsUsedAndNotShutDown() throws Exception {
		Path src = TestTrees.sample(tmp.resolve("src"), 30, 700_000);
		Path zip = tmp.resolve("state.zip");
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try {
			try (ArchiveWriter w = Archives.newWriter(zip,
					WriteOptions.defaults().withExecutor(pool).withChunkSize(128 << 10))) {
				w.addTree(src, "x/", TreeFilter.ALL);
				w.commit();
			}
			try (ArchiveReader r = Archives.open(zip)) {
				r.extract(tmp.resolve("out"), ExtractOptions.defaults().withExecutor(pool).withPrefix("x/"));
			}
			assertThat(pool.isShutdown()).isFalse();
			TestTrees.assertSameTree(src, tmp.resolve("out"));
		} finally {
			pool.shutdownNow();
		}
	}

	@Test
	void emptyArchive() throws Exception {
		Path zip = tmp.resolve("empty.zip");
		try (ArchiveWriter w = Archives.newWriter(zip, WriteOptions.defaults())) {
			assertThat(w.commit().entries()).isZero();
		}
		try (ArchiveReader r = Archives.open(zip)) {
			assertThat(r.entries()).isEmpty();
			assertThat(r.extract(tmp.resolve("o"), ExtractOptions.defaults()).written()).isEmpty();
		}
	}
}
