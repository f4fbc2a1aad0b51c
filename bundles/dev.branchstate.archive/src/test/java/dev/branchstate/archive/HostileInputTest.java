package dev.branchstate.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import java.util.zip.CRC32;

import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveOutputStream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.github.luben.zstd.Zstd;

/**
 * Truncated, bit-flipped and hand-crafted hostile archives: each ends either in a correct extraction inside the
 * target directory or in an {@link ArchiveException}; never another exception, a write outside the target, an
 * OutOfMemoryError or a hang.
 */
class HostileInputTest {

	@TempDir
	Path tmp;

	/** Shared by the thousands of extractions (the engine never shuts down a given executor). */
	private static final java.util.concurrent.ExecutorService POOL = java.util.concurrent.Executors
			.newFixedThreadPool(2, r -> {
				Thread t = new Thread(r, "hostile-test");
				t.setDaemon(true);
				return t;
			});

	private byte[] baseArchive() throws IOException {
		Path src = tmp.resolve("base-src");
		Files.createDirectories(src.resolve("d/e"));
		for (int i = 0; i < 4; i++) {
			Files.writeString(src.resolve("d/f" + i + ".txt"), ("text " + i + " ").repeat(40 * (i + 1)));
		}
		byte[] noise = new byte[300];
		new Random(7).nextBytes(noise);
		Files.write(src.resolve("d/e/noise"), noise);
		byte[] chunked = new byte[200_000];
		for (int i = 0; i < chunked.length; i++) {
			chunked[i] = (byte) (i / 100);
		}
		Files.write(src.resolve("d/e/chunked"), chunked);
		Files.createSymbolicLink(src.resolve("d/link"), src.getFileSystem().getPath("e/noise"));
		Path zip = tmp.resolve("base.zip");
		try (ArchiveWriter w = Archives.newWriter(zip, WriteOptions.defaults().withChunkSize(64 << 10).withWorkers(1))) {
			w.addTree(src, "", TreeFilter.ALL);
			w.commit();
		}
		return Files.readAllBytes(zip);
	}

	/** Opens, lists, streams every entry and extracts; returns the exception or null. */
	private Throwable attempt(byte[] archive, Path sandbox) throws IOException {
		Path zip = sandbox.resolve("a.zip");
		Path out = sandbox.resolve("out");
		Files.write(zip, archive);
		try (ArchiveReader r = Archives.open(zip)) {
			for (ArchiveEntry e : r.entries()) {
				if (!e.isDirectory() && e.size() < 1 << 20) {
					r.readAllBytes(e.name(), 1 << 20);
				}
			}
			r.extract(out, ExtractOptions.defaults().withExecutor(POOL).withMaxTotalSize(50L << 20));
			return null;
		} catch (ArchiveException e) {
			assertThat(e.getArchive()).isEqualTo(zip);
			return e;
		} catch (Throwable t) {
			return t;
		}
	}

	private void checkSandbox(Path sandbox) throws IOException {
		try (Stream<Path> s = Files.list(sandbox)) {
			assertThat(s.map(p -> p.getFileName().toString())).isSubsetOf("a.zip", "out");
		}
		Path out = sandbox.resolve("out");
		if (Files.exists(out)) {
			try (Stream<Path> s = Files.walk(out)) {
				for (Path p : (Iterable<Path>) s::iterator) {
					if (Files.isSymbolicLink(p)) {
						Path t = p.getParent().resolve(Files.readSymbolicLink(p)).normalize();
						assertThat(t.startsWith(out)).as("link %s -> %s", p, t).isTrue();
					}
				}
			}
			deleteTree(out);
		}
	}

	private static void deleteTree(Path p) throws IOException {
		if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
			try (Stream<Path> s = Files.list(p)) {
				for (Path c : (Iterable<Path>) s::iterator) {
					deleteTree(c);
				}
			}
		}
		Files.delete(p);
	}

	private void expectOnlyArchiveExceptions(List<byte[]> mutants, String what) throws IOException {
		Path sandbox = Files.createDirectories(tmp.resolve("sandbox"));
		int failures = 0;
		for (int i = 0; i < mutants.size(); i++) {
			Throwable t = attempt(mutants.get(i), sandbox);
			if (t != null && !(t instanceof ArchiveException)) {
				fail(what + " #" + i + " raised " + t, t);
			}
			if (t != null) {
				failures++;
			}
			checkSandbox(sandbox);
		}
		assertThat(failures).as(what + " mutants rejected").isPositive();
	}

	@Test
	void truncationAtEveryOffset() throws Exception {
		byte[] base = baseArchive();
		List<byte[]> mutants = new ArrayList<>();
		for (int len = 0; len < base.length; len++) {
			mutants.add(java.util.Arrays.copyOf(base, len));
		}
		Assertions.assertTimeoutPreemptively(Duration.ofSeconds(60),
				() -> expectOnlyArchiveExceptions(mutants, "truncation"));
	}

	@Test
	void thousandsOfBitFlipsAndLyingFields() throws Exception {
		byte[] base = baseArchive();
		Random rnd = new Random(20261122);
		List<byte[]> mutants = new ArrayList<>();
		for (int i = 0; i < 2000; i++) {
			byte[] m = base.clone();
			int kind = i % 4;
			int flips = 1 + rnd.nextInt(3);
			for (int f = 0; f < flips; f++) {
				// bias half of the mutations towards the central directory and end records (the last 20%)
				int pos = rnd.nextBoolean() ? rnd.nextInt(m.length) : m.length - 1 - rnd.nextInt(m.length / 5);
				switch (kind) {
					case 0 -> m[pos] ^= (byte) (1 << rnd.nextInt(8));
					case 1 -> m[pos] = (byte) 0xff;
					case 2 -> m[pos] = 0;
					default -> {
						// a 32-bit field set to a lying value
						int p = Math.min(pos, m.length - 4);
						int v = switch (rnd.nextInt(4)) {
							case 0 -> -1;
							case 1 -> Integer.MAX_VALUE;
							case 2 -> rnd.nextInt(1 << 20);
							default -> 0;
						};
						ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).putInt(p, v);
					}
				}
			}
			mutants.add(m);
		}
		Assertions.assertTimeoutPreemptively(Duration.ofSeconds(90),
				() -> expectOnlyArchiveExceptions(mutants, "mutation"));
	}

	// ---------------------------------------------------------------- crafted archives

	private interface EntryWriter {
		void write(ZipArchiveOutputStream z) throws IOException;
	}

	private Path craft(EntryWriter w) throws IOException {
		Path zip = tmp.resolve("crafted-" + System.nanoTime() + ".zip");
		try (ZipArchiveOutputStream z = new ZipArchiveOutputStream(zip)) {
			w.write(z);
		}
		return zip;
	}

	private static void stored(ZipArchiveOutputStream z, String name, byte[] data, int unixMode) throws IOException {
		ZipArchiveEntry e = new ZipArchiveEntry(name);
		e.setMethod(ZipArchiveEntry.STORED);
		e.setSize(data.length);
		CRC32 c = new CRC32();
		c.update(data);
		e.setCrc(c.getValue());
		if (unixMode != 0) {
			e.setUnixMode(unixMode);
		}
		z.putArchiveEntry(e);
		z.write(data);
		z.closeArchiveEntry();
	}

	/** A zstd entry whose declared size and CRC can lie. */
	private static void rawZstd(ZipArchiveOutputStream z, String name, byte[] data, long declaredSize, long crc)
			throws IOException {
		byte[] packed = Zstd.compress(data, 3);
		ZipArchiveEntry e = new ZipArchiveEntry(name);
		e.setMethod(93);
		e.setSize(declaredSize);
		e.setCompressedSize(packed.length);
		e.setCrc(crc);
		z.addRawArchiveEntry(e, new java.io.ByteArrayInputStream(packed));
	}

	private static long crc(byte[] data) {
		CRC32 c = new CRC32();
		c.update(data);
		return c.getValue();
	}

	private ArchiveException extractFails(Path zip, ExtractOptions options) throws IOException {
		Path out = tmp.resolve("out-" + System.nanoTime());
		try {
			try (ArchiveReader r = Archives.open(zip)) {
				r.extract(out, options);
			}
			return fail("extraction of a hostile archive succeeded");
		} catch (ArchiveException e) {
			assertThat(e.getArchive()).isEqualTo(zip);
			try (Stream<Path> s = Files.list(tmp)) {
				assertThat(s.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains("evil"));
			}
			return e;
		}
	}

	@Test
	void pathTraversalAbsoluteAndDuplicateNamesAreRejected() throws Exception {
		byte[] x = "x".getBytes(StandardCharsets.UTF_8);
		for (String name : new String[] { "../evil", "a/../../evil", "/tmp/evil", "a//evil", "a\\..\\evil", "./evil" }) {
			Path zip = craft(z -> stored(z, name, x, 0));
			ArchiveException e = extractFails(zip, ExtractOptions.defaults());
			assertThat(e.getEntry()).isEqualTo(name.replace('\\', '/')); // Commons Compress normalises '\\'
			assertThat(e.getMessage()).contains("unsafe entry name");
		}
		Path dup = craft(z -> {
			stored(z, "a/b", x, 0);
			stored(z, "a/b", x, 0);
		});
		assertThat(extractFails(dup, ExtractOptions.defaults()).getMessage()).contains("duplicate");
	}

	@Test
	void linksOutsideAndEntriesBelowLinksAreRejected() throws Exception {
		Path out1 = craft(z -> stored(z, "l", "../../evil".getBytes(StandardCharsets.UTF_8), 0120777));
		assertThat(extractFails(out1, ExtractOptions.defaults()).getMessage()).contains("outside");
		Path abs = craft(z -> stored(z, "l", tmp.toString().getBytes(StandardCharsets.UTF_8), 0120777));
		assertThat(extractFails(abs, ExtractOptions.defaults()).getMessage()).contains("outside");
		Path through = craft(z -> {
			stored(z, "l", ".".getBytes(StandardCharsets.UTF_8), 0120777);
			stored(z, "l/evil", "x".getBytes(StandardCharsets.UTF_8), 0100644);
		});
		assertThat(extractFails(through, ExtractOptions.defaults()).getMessage()).contains("below a symlink");
	}

	@Test
	void existingLinkInTheTargetIsReplacedNotFollowed() throws Exception {
		Path outside = Files.createDirectories(tmp.resolve("outside"));
		Path out = Files.createDirectories(tmp.resolve("target"));
		Files.createSymbolicLink(out.resolve("d"), outside);
		Files.createSymbolicLink(out.resolve("f"), outside.resolve("victim"));
		Path zip = craft(z -> {
			stored(z, "d/x", "x".getBytes(StandardCharsets.UTF_8), 0100644);
			stored(z, "f", "y".getBytes(StandardCharsets.UTF_8), 0100644);
		});
		try (ArchiveReader r = Archives.open(zip)) {
			r.extract(out, ExtractOptions.defaults());
		}
		try (Stream<Path> s = Files.list(outside)) {
			assertThat(s).isEmpty();
		}
		assertThat(Files.isSymbolicLink(out.resolve("d"))).isFalse();
		assertThat(Files.readString(out.resolve("d/x"))).isEqualTo("x");
		assertThat(Files.readString(out.resolve("f"))).isEqualTo("y");
	}

	@Test
	void sizesAndCrcsThatLieFailTheEntryAndLeaveNoFile() throws Exception {
		byte[] data = "hello hello hello hello hello hello hello hello hello hello hello hello".repeat(20)
				.getBytes(StandardCharsets.UTF_8);
		Path smaller = craft(z -> rawZstd(z, "small", data, data.length - 1, crc(data)));
		assertThat(extractFails(smaller, ExtractOptions.defaults()).getEntry()).isEqualTo("small");
		Path larger = craft(z -> rawZstd(z, "large", data, data.length + 1, crc(data)));
		assertThat(extractFails(larger, ExtractOptions.defaults()).getEntry()).isEqualTo("large");
		Path badCrc = craft(z -> rawZstd(z, "crc", data, data.length, crc(data) ^ 1));
		ArchiveException e = extractFails(badCrc, ExtractOptions.defaults());
		assertThat(e.getMessage()).contains("CRC");
		assertThat(e.getOffset()).isPositive();
		Path storedCrc = craft(z -> {
			ZipArchiveEntry en = new ZipArchiveEntry("s");
			en.setMethod(ZipArchiveEntry.STORED);
			en.setSize(data.length);
			en.setCompressedSize(data.length);
			en.setCrc(crc(data) ^ 1);
			z.addRawArchiveEntry(en, new java.io.ByteArrayInputStream(data));
		});
		Path out = tmp.resolve("o");
		try (ArchiveReader r = Archives.open(storedCrc)) {
			assertThatThrownBy(() -> r.extract(out, ExtractOptions.defaults())).isInstanceOf(ArchiveException.class);
			assertThatThrownBy(() -> r.readAllBytes("s", 1 << 20)).isInstanceOf(ArchiveException.class);
		}
		assertThat(out.resolve("s")).doesNotExist();
	}

	@Test
	void zipBombsHitRatioAndTotalSizeLimits() throws Exception {
		byte[] zeros = new byte[64 << 20];
		Path bomb = craft(z -> {
			rawZstd(z, "b1", zeros, zeros.length, crc(zeros));
			rawZstd(z, "b2", zeros, zeros.length, crc(zeros));
		});
		assertThat(extractFails(bomb, ExtractOptions.defaults().withMaxRatio(1000)).getMessage()).contains("ratio");
		assertThat(extractFails(bomb, ExtractOptions.defaults().withMaxTotalSize(100 << 20)).getMessage())
				.contains("total size");
		// a lying small declared size cannot make the decoder produce more than declared
		Path liar = craft(z -> rawZstd(z, "liar", zeros, 1000, crc(zeros)));
		assertThat(extractFails(liar, ExtractOptions.defaults()).getEntry()).isEqualTo("liar");
	}

	@Test
	void overflowingZip64RecordsAreRejected() throws Exception {
		// end record says: Zip64; Zip64 end record declares 2^62 entries at an absurd offset
		ByteArrayOutputStream b = new ByteArrayOutputStream();
		ByteBuffer z64 = ByteBuffer.allocate(56 + 20 + 22).order(ByteOrder.LITTLE_ENDIAN);
		z64.putInt(0x06064b50).putLong(44).putShort((short) 63).putShort((short) 45).putInt(0).putInt(0)
				.putLong(1L << 62).putLong(1L << 62).putLong(Long.MAX_VALUE - 5).putLong(Long.MAX_VALUE - 100);
		z64.putInt(0x07064b50).putInt(0).putLong(0).putInt(1);
		z64.putInt(0x06054b50).putShort((short) 0).putShort((short) 0).putShort((short) -1).putShort((short) -1)
				.putInt(-1).putInt(-1).putShort((short) 0);
		b.write(z64.array());
		Path zip = tmp.resolve("z64.zip");
		Files.write(zip, b.toByteArray());
		assertThatThrownBy(() -> Archives.open(zip)).isInstanceOf(ArchiveException.class)
				.hasMessageContaining("outside the file");
		// a central record whose Zip64 extra overflows to a negative size
		Path base = craft(z -> stored(z, "f", new byte[10], 0));
		byte[] a = Files.readAllBytes(base);
		byte[] patched = patchZip64Size(a);
		Path p = tmp.resolve("neg.zip");
		Files.write(p, patched);
		assertThatThrownBy(() -> Archives.open(p)).isInstanceOf(ArchiveException.class)
				.hasMessageContaining("overflows");
	}

	/** Rewrites the single central record of a tiny archive: size 0xffffffff plus a Zip64 extra of -1. */
	private static byte[] patchZip64Size(byte[] a) {
		ByteBuffer in = ByteBuffer.wrap(a).order(ByteOrder.LITTLE_ENDIAN);
		int eocd = a.length - 22;
		int cdOff = in.getInt(eocd + 16);
		int cdSize = in.getInt(eocd + 12);
		int n = Short.toUnsignedInt(in.getShort(cdOff + 28));
		int e = Short.toUnsignedInt(in.getShort(cdOff + 30));
		ByteBuffer out = ByteBuffer.allocate(a.length + 12).order(ByteOrder.LITTLE_ENDIAN);
		out.put(a, 0, cdOff + 46 + n + e);
		out.putShort((short) 1).putShort((short) 8).putLong(-1L);
		out.put(a, cdOff + 46 + n + e, a.length - (cdOff + 46 + n + e));
		out.putInt(cdOff + 24, -1);
		out.putShort(cdOff + 30, (short) (e + 12));
		out.putInt(a.length + 12 - 22 + 12, cdSize + 12);
		return out.array();
	}

	@Test
	void garbageIsNotAnArchive() throws Exception {
		Path g = tmp.resolve("g.zip");
		Files.write(g, "PK\u0005\u0006 this is not a zip file at all".getBytes(StandardCharsets.ISO_8859_1));
		assertThatThrownBy(() -> Archives.open(g)).isInstanceOf(ArchiveException.class);
		Files.write(g, new byte[0]);
		assertThatThrownBy(() -> Archives.open(g)).isInstanceOf(ArchiveException.class);
	}

}
