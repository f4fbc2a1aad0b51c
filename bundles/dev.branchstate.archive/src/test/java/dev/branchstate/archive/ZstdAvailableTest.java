package dev.branchstate.archive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import com.github.luben.zstd.Zstd;

class ZstdAvailableTest {

	@Test
	void zstdNativeLibraryRoundTrips() {
		byte[] text = "branchstate ".repeat(1000).getBytes(StandardCharsets.UTF_8);
		byte[] compressed = Zstd.compress(text, 3);
		assertThat(compressed.length).isLessThan(text.length / 10);
		assertThat(Zstd.decompress(compressed, text.length)).isEqualTo(text);
	}
}
