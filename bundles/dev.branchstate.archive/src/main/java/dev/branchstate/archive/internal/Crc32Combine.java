package dev.branchstate.archive.internal;

/**
 * zlib's {@code crc32_combine}: the CRC-32 of A+B from crc(A), crc(B) and len(B). Appending len(B) zero bytes to A
 * is a linear map of crc(A) over GF(2); the maps for 2^k zero bytes are made once, so that a combine applies one map
 * per bit set in len(B) (a few hundred operations, where squaring the maps anew on each call cost some twenty
 * thousand: the central directory's check of every chunked entry's frame CRCs calls it once per frame).
 */
final class Crc32Combine {

	/** {@code ZEROS[k]}: the 32 columns of the map that appends 2^k zero bytes. */
	private static final long[][] ZEROS = new long[64][];

	static {
		long[] oneBit = new long[32]; // appending one zero bit: the CRC-32 polynomial's step
		oneBit[0] = 0xedb88320L;
		long row = 1;
		for (int n = 1; n < 32; n++) {
			oneBit[n] = row;
			row <<= 1;
		}
		long[] map = square(square(square(oneBit))); // one zero byte: eight zero bits
		for (int k = 0; k < ZEROS.length; k++) {
			ZEROS[k] = map;
			map = square(map);
		}
	}

	private Crc32Combine() {
	}

	static int combine(int crc1, int crc2, long len2) {
		if (len2 <= 0) {
			return crc1;
		}
		long c1 = crc1 & 0xffffffffL;
		for (int k = 0; len2 != 0; k++, len2 >>>= 1) {
			if ((len2 & 1) != 0) {
				c1 = times(ZEROS[k], c1);
			}
		}
		return (int) (c1 ^ (crc2 & 0xffffffffL));
	}

	private static long times(long[] mat, long vec) {
		long sum = 0;
		int i = 0;
		while (vec != 0) {
			if ((vec & 1) != 0) {
				sum ^= mat[i];
			}
			vec >>= 1;
			i++;
		}
		return sum;
	}

	private static long[] square(long[] mat) {
		long[] square = new long[32];
		for (int n = 0; n < 32; n++) {
			square[n] = times(mat, mat[n]);
		}
		return square;
	}
}
