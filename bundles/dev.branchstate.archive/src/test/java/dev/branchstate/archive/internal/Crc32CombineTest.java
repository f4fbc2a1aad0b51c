package dev.branchstate.archive.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.zip.CRC32;

import org.junit.jupiter.api.Test;

/** The CRC-32 of two parts combined equals the CRC-32 of their concatenation, for lengths of many magnitudes. */
class Crc32CombineTest {

	private static int crc(byte[] data, int from, int to) {
		CRC32 crc = new CRC32();
		crc.update(data, from, to - from);
		return (int) crc.getValue();
	}

	@Test
	void combinesToTheCrcOfTheConcatenation() {
		Random random = new Random(13);
		byte[] data = new byte[(1 << 24) + 777];
		random.nextBytes(data);
		for (int split : new int[] { 0, 1, 2, 3, 7, 8, 255, 256, 4096, 65_537, 1 << 20, 3_000_001, 1 << 24,
				data.length - 1, data.length }) {
			int whole = crc(data, 0, data.length);
			int combined = Crc32Combine.combine(crc(data, 0, split), crc(data, split, data.length), data.length - split);
			assertThat(combined).as("split at %d", split).isEqualTo(whole);
		}
		for (int i = 0; i < 50; i++) {
			int a = random.nextInt(data.length);
			int b = a + random.nextInt(data.length - a + 1);
			assertThat(Crc32Combine.combine(crc(data, 0, a), crc(data, a, b), b - a)).isEqualTo(crc(data, 0, b));
		}
	}

	@Test
	void aPartOfZeroLengthLeavesTheFirstCrc() {
		assertThat(Crc32Combine.combine(0x1234_5678, 0, 0)).isEqualTo(0x1234_5678);
	}
}
