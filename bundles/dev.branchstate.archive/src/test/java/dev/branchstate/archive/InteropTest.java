package dev.branchstate.archive;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.Random;
import java.util.zip.CRC32;

import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveOutputStream;
import org.apache.commons.compress.archivers.zip.ZipFile;
import org.apache.commons.compress.archivers.zip.ZipMethod;
import org.apache.commons.compress.compressors.zstandard.ZstdCompressorOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Both directions with Apache Commons Compress 1.28 (ZipMethod.ZSTD). */
class InteropTest {

	@TempDir
	Path tmp;

	@Test
	void commonsCompressReadsOurArchivesByteForByte() throws Exception {
		Path src = TestTrees.sample(tmp.resolve("src"), 60, 3_500_000);
		Path zip = tmp.resolve("ours.zip");
		try (ArchiveWriter w = Archives.newWriter(zip, WriteOptions.defaults().withChunkSize(1 << 20))) {
			w.addTree(src, "", TreeFilter.ALL);
			w.commit();
		}
		int files = 0;
		boolean sawChunked = false;
		try (ZipFile z = ZipFile.builder().setPath(zip).get(); ArchiveReader ours = Archives.open(zip)) {
			Enumeration<ZipArchiveEntry> en = z.getEntries();
			while (en.hasMoreElements()) {
				ZipArchiveEntry e = en.nextElement();
				ArchiveEntry mine = ours.entry(e.getName()).orElseThrow();
				assertThat(e.getSize()).isEqualTo(mine.size());
				assertThat(e.getCrc()).isEqualTo(Integer.toUnsignedLong(mine.crc32()));
				assertThat(e.getLastModifiedTime().toMillis()).isEqualTo(mine.lastModified().toMillis());
				if (e.isDirectory()) {
					assertThat(mine.isDirectory()).isTrue();
					continue;
				}
				if (e.isUnixSymlink()) {
					assertThat(z.getUnixSymlink(e)).isEqualTo(Files.readSymbolicLink(src.resolve(e.getName())).toString());
					continue;
				}
				assertThat(e.getMethod()).isIn(ZipMethod.STORED.getCode(), ZipMethod.ZSTD.getCode());
				assertThat(e.getUnixMode() & 0777).isEqualTo(mine.mode());
				sawChunked |= mine.chunks() > 1;
				try (InputStream in = z.getInputStream(e)) {
					assertThat(in.readAllBytes()).as(e.getName()).isEqualTo(Files.readAllBytes(src.resolve(e.getName())));
				}
				files++;
			}
		}
		assertThat(files).isEqualTo(66);
		assertThat(sawChunked).isTrue();
	}

	@Test
	void weReadZstdAndStoredArchivesWrittenByCommonsCompress() throws Exception {
		Random rnd = new Random(3);
		byte[] small = "commons compress wrote this line\n".repeat(500).getBytes();
		byte[] big = new byte[5_000_000]; // beyond one buffer, no frame table: decoded by streaming
		for (int i = 0; i < big.length; i++) {
			big[i] = (byte) (rnd.nextInt(4) + i / 5000);
		}
		byte[] noise = new byte[10_000];
		rnd.nextBytes(noise);
		Path zip = tmp.resolve("commons.zip");
		try (ZipArchiveOutputStream z = new ZipArchiveOutputStream(zip)) {
			z.setUseZip64(org.apache.commons.compress.archivers.zip.Zip64Mode.AsNeeded);
			zstd(z, "dir/small.txt", small, 0100644);
			zstd(z, "dir/big.bin", big, 0100755);
			ZipArchiveEntry s = new ZipArchiveEntry("noise.bin");
			s.setMethod(ZipArchiveEntry.STORED);
			s.setSize(noise.length);
			s.setCrc(crc(noise));
			z.putArchiveEntry(s);
			z.write(noise);
			z.closeArchiveEntry();
			ZipArchiveEntry d = new ZipArchiveEntry("empty/");
			z.putArchiveEntry(d);
			z.closeArchiveEntry();
		}
		Path out = tmp.resolve("out");
		try (ArchiveReader r = Archives.open(zip)) {
			assertThat(r.entries()).extracting(ArchiveEntry::name).containsExactly("dir/small.txt", "dir/big.bin",
					"noise.bin", "empty/");
			assertThat(r.readAllBytes("dir/small.txt", 1 << 20)).isEqualTo(small);
			ExtractResult res = r.extract(out, ExtractOptions.defaults());
			assertThat(res.written()).contains("dir/small.txt", "dir/big.bin", "noise.bin");
		}
		assertThat(Files.readAllBytes(out.resolve("dir/small.txt"))).isEqualTo(small);
		assertThat(Files.readAllBytes(out.resolve("dir/big.bin"))).isEqualTo(big);
		assertThat(Files.readAllBytes(out.resolve("noise.bin"))).isEqualTo(noise);
		assertThat(Files.isExecutable(out.resolve("dir/big.bin"))).isTrue();
		assertThat(out.resolve("empty")).isDirectory();
	}

	private static void zstd(ZipArchiveOutputStream z, String name, byte[] data, int mode) throws IOException {
		ByteArrayOutputStream packed = new ByteArrayOutputStream();
		try (ZstdCompressorOutputStream c = new ZstdCompressorOutputStream(packed)) {
			c.write(data);
		}
		ZipArchiveEntry e = new ZipArchiveEntry(name);
		e.setMethod(ZipMethod.ZSTD.getCode());
		e.setSize(data.length);
		e.setCompressedSize(packed.size());
		e.setCrc(crc(data));
		e.setUnixMode(mode);
		z.addRawArchiveEntry(e, new ByteArrayInputStream(packed.toByteArray()));
	}

	private static long crc(byte[] data) {
		CRC32 c = new CRC32();
		c.update(data);
		return c.getValue();
	}
}
