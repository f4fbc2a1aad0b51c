package dev.branchstate.archive.internal;

import java.nio.ByteBuffer;

import com.github.luben.zstd.ZstdCompressCtx;

/**
 * A writer thread's zstd contexts: one at the archive's level, and one at level 1 for data that looks already
 * compressed (jars, images, archives), where stronger levels spend several times the CPU for a few tenths of a
 * percent. Measured on the scale benchmark's derived files (`releng/bench/scale`): jars, whose bytes sampled here
 * carry 7.75–8 bits of entropy per byte, compress to 0.887 of their size at level 3 and to 0.896 at level 1, at
 * ~210 and ~615 MB/s; class files (5–6.5 bits) stay at the archive's level, where it pays (0.33–0.48 at level 3 against
 * 0.34–0.51). Which context compresses an input depends only on its bytes: the same tree makes the same archive.
 */
final class Compressors implements AutoCloseable {

	/** The level for data that looks compressed. */
	static final int FAST_LEVEL = 1;
	/** Inputs shorter than this always go to the archive's level: the estimate needs bytes, and they cost little. */
	static final int MIN_ESTIMATED = 64 << 10;
	/** Bits of entropy per byte (of 8) from which data looks compressed. */
	static final double COMPRESSED_BITS = 7.5;
	/** The estimate reads runs of this many bytes, {@link #INTERVAL} apart (as btrfs's compression heuristic does). */
	private static final int RUN = 16;
	private static final int INTERVAL = 256;

	private final ZstdCompressCtx normal;
	private final ZstdCompressCtx fast;
	private final int[] counts = new int[256];

	Compressors(int level) {
		normal = context(level);
		fast = level > FAST_LEVEL ? context(FAST_LEVEL) : null;
	}

	private static ZstdCompressCtx context(int level) {
		ZstdCompressCtx c = new ZstdCompressCtx();
		c.setLevel(level);
		c.setChecksum(false);
		c.setContentSize(true);
		return c;
	}

	/** @return the context for the {@code len} bytes of {@code src} from {@code off} */
	ZstdCompressCtx forData(ByteBuffer src, int off, int len) {
		return fast != null && len >= MIN_ESTIMATED && entropyBits(src, off, len, counts) >= COMPRESSED_BITS ? fast
				: normal;
	}

	/**
	 * @return the order-0 entropy, in bits per byte, of runs of {@value #RUN} bytes every {@value #INTERVAL} bytes of
	 *         the range (a sample of 1/16 of it)
	 */
	static double entropyBits(ByteBuffer src, int off, int len, int[] counts) {
		java.util.Arrays.fill(counts, 0);
		int n = 0;
		int end = off + len - RUN;
		for (int at = off; at <= end; at += INTERVAL) {
			for (int i = at; i < at + RUN; i++) {
				counts[src.get(i) & 0xff]++;
			}
			n += RUN;
		}
		if (n == 0) {
			return 0;
		}
		double bits = 0;
		for (int c : counts) {
			if (c > 0) {
				double p = (double) c / n;
				bits -= p * Math.log(p);
			}
		}
		return bits / Math.log(2);
	}

	@Override
	public void close() {
		normal.close();
		if (fast != null) {
			fast.close();
		}
	}
}
