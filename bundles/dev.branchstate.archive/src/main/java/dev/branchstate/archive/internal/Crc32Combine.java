package dev.branchstate.archive.internal;

/** zlib's {@code crc32_combine}: the CRC-32 of A+B from crc(A), crc(B) and len(B). */
final class Crc32Combine {

	private Crc32Combine() {
	}

	static int combine(int crc1, int crc2, long len2) {
		if (len2 <= 0) {
			return crc1;
		}
		long[] even = new long[32];
		long[] odd = new long[32];
		odd[0] = 0xedb88320L;
		long row = 1;
		for (int n = 1; n < 32; n++) {
			odd[n] = row;
			row <<= 1;
		}
		square(even, odd);
		square(odd, even);
		long c1 = crc1 & 0xffffffffL;
		do {
			square(even, odd);
			if ((len2 & 1) != 0) {
				c1 = times(even, c1);
			}
			len2 >>= 1;
			if (len2 == 0) {
				break;
			}
			square(odd, even);
			if ((len2 & 1) != 0) {
				c1 = times(odd, c1);
			}
			len2 >>= 1;
		} while (len2 != 0);
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

	private static void square(long[] square, long[] mat) {
		for (int n = 0; n < 32; n++) {
			square[n] = times(mat, mat[n]);
		}
	}
}
