package dev.branchstate.archive.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import dev.branchstate.archive.EntryType;

class NamePagesTest {

	/**
	 * Names kept as a folder shared in a page and the rest (the reader's records) or whole (the writer's) compare,
	 * match and read back as their bytes do, whatever the parts' lengths.
	 */
	@Test
	void namesInTwoPartsBehaveAsTheirBytes() {
		Random random = new Random(13);
		String[] segments = { "a", "b", "ab", "é", "x.class", "a.b", "\uff5e", "\ud83d\ude00" };
		List<byte[]> bytes = new ArrayList<>();
		for (int i = 0; i < 400; i++) {
			StringBuilder name = new StringBuilder();
			int depth = 1 + random.nextInt(4);
			for (int d = 0; d < depth; d++) {
				name.append(d > 0 ? "/" : "").append(segments[random.nextInt(segments.length)]);
			}
			if (random.nextInt(5) == 0) {
				name.append('/');
			}
			bytes.add(name.toString().getBytes(StandardCharsets.UTF_8));
		}
		bytes.sort(Arrays::compareUnsigned); // folder by folder, as an archive holds them
		NamePages pages = new NamePages(bytes.stream().mapToLong(b -> b.length).sum());
		List<EntryRecord> read = new ArrayList<>();
		List<EntryRecord> written = new ArrayList<>();
		for (byte[] b : bytes) {
			byte[] padded = new byte[b.length + 3]; // (not at the start of its array)
			System.arraycopy(b, 0, padded, 3, b.length);
			pages.place(padded, 3, b.length);
			read.add(pages.record(b.length, EntryType.FILE, 0644, 0));
			written.add(new EntryRecord(b.clone(), EntryType.FILE, 0644, java.nio.file.attribute.FileTime.fromMillis(0)));
		}
		for (int i = 0; i < bytes.size(); i++) {
			byte[] a = bytes.get(i);
			for (EntryRecord r : List.of(read.get(i), written.get(i))) {
				assertThat(r.name()).isEqualTo(new String(a, StandardCharsets.UTF_8));
				ByteBuffer out = ByteBuffer.allocate(a.length + 1);
				r.putName(out, 1);
				assertThat(Arrays.copyOfRange(out.array(), 1, a.length + 1)).isEqualTo(a);
				for (int k = 0; k < a.length; k++) {
					assertThat(r.nameByte(k)).isEqualTo(a[k]);
				}
				int slash = new String(a, StandardCharsets.UTF_8).indexOf('/');
				if (slash > 0) {
					int prefix = new String(a, StandardCharsets.UTF_8).substring(0, slash + 1)
							.getBytes(StandardCharsets.UTF_8).length;
					assertThat(r.nameAfter(prefix))
							.isEqualTo(new String(a, prefix, a.length - prefix, StandardCharsets.UTF_8));
				}
			}
			for (int j = 0; j < bytes.size(); j++) {
				byte[] b = bytes.get(j);
				int expected = Integer.signum(Arrays.compareUnsigned(a, b));
				assertThat(Integer.signum(read.get(i).compareName(read.get(j)))).isEqualTo(expected);
				assertThat(Integer.signum(read.get(i).compareName(written.get(j)))).isEqualTo(expected);
				assertThat(Integer.signum(written.get(i).compareName(read.get(j)))).isEqualTo(expected);
				assertThat(Integer.signum(read.get(i).compareName(b))).isEqualTo(expected);
				assertThat(read.get(i).nameIs(b)).isEqualTo(Arrays.equals(a, b));
				byte[] prefix = Arrays.copyOf(b, random.nextInt(b.length + 1));
				boolean starts = prefix.length <= a.length
						&& Arrays.equals(a, 0, prefix.length, prefix, 0, prefix.length);
				assertThat(read.get(i).nameStartsWith(prefix)).isEqualTo(starts);
				assertThat(written.get(i).nameStartsWith(prefix)).isEqualTo(starts);
			}
		}
	}
}
