package dev.branchstate.archive;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Builds source trees and compares trees (content, links, modes, mtimes). */
final class TestTrees {

	private TestTrees() {
	}

	/** A tree with text files, an incompressible file, a multi-chunk file, a link, an empty directory. */
	static Path sample(Path dir, int files, int bigSize) throws IOException {
		Random rnd = new Random(42);
		Files.createDirectories(dir.resolve("src/pkg/sub"));
		Files.createDirectories(dir.resolve("empty"));
		for (int i = 0; i < files; i++) {
			StringBuilder sb = new StringBuilder();
			for (int k = 0; k < i * 7; k++) {
				sb.append("class C").append(k % 13).append(" { int f").append(i).append("; }\n");
			}
			Files.writeString(dir.resolve("src/pkg/F" + i + ".java"), sb);
		}
		byte[] noise = new byte[70_000];
		rnd.nextBytes(noise);
		Files.write(dir.resolve("src/noise.bin"), noise);
		byte[] big = new byte[bigSize];
		for (int i = 0; i < big.length; i++) {
			big[i] = (byte) ((i % 1000) < 300 ? rnd.nextInt() : i / 1000);
		}
		Files.write(dir.resolve("src/pkg/sub/big.dat"), big);
		Files.write(dir.resolve("src/pkg/sub/zero"), new byte[0]);
		Files.writeString(dir.resolve("run.sh"), "#!/bin/sh\necho hi\n");
		Files.setPosixFilePermissions(dir.resolve("run.sh"), PosixFilePermissions.fromString("rwxr-x---"));
		Files.createSymbolicLink(dir.resolve("src/link"), dir.getFileSystem().getPath("pkg/sub/big.dat"));
		Files.writeString(dir.resolve("ünïcødé €.txt"), "名前", StandardCharsets.UTF_8);
		Files.writeString(dir.resolve("system-systemd\\x2dcryptsetup.slice:1"), "POSIX names may hold \\ and :");
		Files.setLastModifiedTime(dir.resolve("src/pkg/F1.java"), FileTime.fromMillis(1_000_000_000_000L));
		return dir;
	}

	/** Path → description (type, mode, size, mtime, content hash or link target). */
	static Map<String, String> describe(Path root) throws IOException {
		Map<String, String> m = new TreeMap<>();
		try (Stream<Path> s = Files.walk(root)) {
			for (Path p : (Iterable<Path>) s::iterator) {
				if (p.equals(root)) {
					continue;
				}
				String rel = root.relativize(p).toString();
				if (Files.isSymbolicLink(p)) {
					m.put(rel, "link " + Files.readSymbolicLink(p));
				} else if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
					m.put(rel, "dir " + PosixFilePermissions.toString(Files.getPosixFilePermissions(p)));
				} else {
					m.put(rel, "file " + PosixFilePermissions.toString(Files.getPosixFilePermissions(p)) + " "
							+ Files.size(p) + " " + Files.getLastModifiedTime(p).toMillis() + " "
							+ java.util.Arrays.hashCode(Files.readAllBytes(p)));
				}
			}
		}
		return m;
	}

	static void assertSameTree(Path expected, Path actual) throws IOException {
		assertThat(describe(actual)).isEqualTo(describe(expected));
	}

	/** Random bytes: zstd keeps them in raw blocks, so they appear verbatim in an archive and can be damaged. */
	static byte[] noise(int size, long seed) {
		byte[] b = new byte[size];
		new Random(seed).nextBytes(b);
		return b;
	}

	/**
	 * Changes the character at {@code index} of an entry's name in its central record (the name's last occurrence in
	 * the archive) to {@code to}: a valid name of another file, so that only the directory's checksum can tell.
	 */
	static void renameInCentralDirectory(Path zip, String name, int index, char to) throws IOException {
		byte[] bytes = Files.readAllBytes(zip);
		byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
		int last = -1;
		for (int i = 0; i + utf8.length <= bytes.length; i++) {
			if (java.util.Arrays.equals(bytes, i, i + utf8.length, utf8, 0, utf8.length)) {
				last = i;
			}
		}
		if (last < 0) {
			throw new AssertionError(name + " not found in the archive");
		}
		bytes[last + index] = (byte) to;
		Files.write(zip, bytes);
	}

	/** Flips one byte of the archive inside the first place where a 32-byte sample of {@code content} occurs. */
	static void damage(Path zip, byte[] content, int from) throws IOException {
		byte[] bytes = Files.readAllBytes(zip);
		byte[] sample = java.util.Arrays.copyOfRange(content, from, from + 32);
		for (int i = 0; i + sample.length <= bytes.length; i++) {
			if (java.util.Arrays.equals(bytes, i, i + sample.length, sample, 0, sample.length)) {
				bytes[i + 16] ^= 0x40;
				Files.write(zip, bytes);
				return;
			}
		}
		throw new AssertionError("sample not found in the archive");
	}
}
