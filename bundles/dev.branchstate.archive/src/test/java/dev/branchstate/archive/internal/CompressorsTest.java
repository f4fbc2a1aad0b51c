package dev.branchstate.archive.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import org.junit.jupiter.api.Test;

/** Data that looks already compressed goes to the fast context; everything else to the archive's level. */
class CompressorsTest {

	private static ByteBuffer direct(byte[] bytes) {
		return ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
	}

	/** A jar's bytes: deflated text entries, as a build's libraries hold. */
	private static byte[] jar() throws Exception {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		Random rnd = new Random(7);
		try (ZipOutputStream zip = new ZipOutputStream(out)) {
			for (int e = 0; e < 40; e++) {
				zip.putNextEntry(new ZipEntry("pkg/C" + e + ".txt"));
				StringBuilder sb = new StringBuilder();
				for (int i = 0; i < 4000; i++) {
					sb.append("word").append(rnd.nextInt(5000)).append(i % 17 == 0 ? '\n' : ' ');
				}
				zip.write(sb.toString().getBytes(StandardCharsets.US_ASCII));
			}
		}
		return out.toByteArray();
	}

	private static byte[] text(int size) {
		StringBuilder sb = new StringBuilder();
		Random rnd = new Random(3);
		while (sb.length() < size) {
			sb.append("public int field").append(rnd.nextInt(300)).append(";\n");
		}
		return sb.substring(0, size).getBytes(StandardCharsets.US_ASCII);
	}

	@Test
	void compressedDataGoesToTheFastLevelAndTheRestToTheArchivesLevel() throws Exception {
		byte[] jar = jar();
		byte[] text = text(jar.length);
		assertThat(jar.length).isGreaterThan(Compressors.MIN_ESTIMATED);
		int[] counts = new int[256];
		assertThat(Compressors.entropyBits(direct(jar), 0, jar.length, counts)).isGreaterThan(7.5);
		assertThat(Compressors.entropyBits(direct(text), 0, text.length, counts)).isLessThan(5.5);

		try (Compressors c = new Compressors(3)) {
			ByteBuffer j = direct(jar);
			ByteBuffer t = direct(text);
			assertThat(c.forData(j, 0, jar.length)).isNotSameAs(c.forData(t, 0, text.length));
			assertThat(c.forData(t, 0, text.length)).as("text at the archive's level")
					.isSameAs(c.forData(t, 100, text.length - 100));
			// the same jar bytes in a small input: the archive's level (the estimate is not made)
			assertThat(c.forData(j, 0, Compressors.MIN_ESTIMATED - 1)).isSameAs(c.forData(t, 0, text.length));
		}
		try (Compressors c = new Compressors(1)) {
			assertThat(c.forData(direct(jar), 0, jar.length)).as("level 1 already: one context")
					.isSameAs(c.forData(direct(text), 0, text.length));
		}
	}

	@Test
	void aFastContextCompressesAtLevelOne() throws Exception {
		byte[] jar = jar();
		ByteBuffer src = direct(jar);
		ByteBuffer dst = ByteBuffer.allocateDirect(jar.length + 1024);
		try (Compressors c = new Compressors(19);
				com.github.luben.zstd.ZstdCompressCtx level1 = new com.github.luben.zstd.ZstdCompressCtx()) {
			level1.setLevel(1);
			level1.setContentSize(true);
			int viaFast = c.forData(src, 0, jar.length).compressDirectByteBuffer(dst, 0, dst.capacity(), src, 0,
					jar.length);
			int atOne = level1.compressDirectByteBuffer(dst, 0, dst.capacity(), src, 0, jar.length);
			assertThat(viaFast).isEqualTo(atOne);
		}
	}
}
