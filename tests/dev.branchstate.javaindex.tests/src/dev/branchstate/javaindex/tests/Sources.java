package dev.branchstate.javaindex.tests;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/** Real Java sources (sources jars from Maven Central) written into a folder the way a Git checkout does. */
final class Sources {

	private Sources() {
	}

	/** @return the {@code .java} entries of a sources jar copied by the build ({@code old} or {@code new}) */
	static Map<String, byte[]> jar(String which) throws IOException {
		String dir = System.getProperty("javaindex.sources");
		if (dir == null) {
			throw new IllegalStateException("system property javaindex.sources is not set (run the tests with Maven)");
		}
		return read(Path.of(dir, which + "-sources.jar"));
	}

	static Map<String, byte[]> read(Path jar) throws IOException {
		Map<String, byte[]> files = new TreeMap<>();
		try (InputStream in = Files.newInputStream(jar); ZipInputStream zip = new ZipInputStream(in)) {
			for (ZipEntry e; (e = zip.getNextEntry()) != null;) {
				if (!e.isDirectory() && e.getName().endsWith(".java")) {
					files.put(e.getName(), zip.readAllBytes());
				}
			}
		}
		return files;
	}

	/**
	 * Makes the {@code .java} files under {@code folder} exactly {@code content}: writes the files that differ,
	 * deletes the ones that are not in it (with java.nio, behind the workspace's back, like {@code git checkout}).
	 *
	 * @return the paths relative to {@code folder} that were written or deleted
	 */
	static Set<String> sync(Path folder, Map<String, byte[]> content) throws IOException {
		Set<String> changed = new TreeSet<>();
		if (Files.isDirectory(folder)) {
			try (Stream<Path> files = Files.walk(folder)) {
				for (Path p : files.filter(f -> f.toString().endsWith(".java")).toList()) {
					String name = folder.relativize(p).toString().replace('\\', '/');
					if (!content.containsKey(name)) {
						Files.delete(p);
						changed.add(name);
					}
				}
			}
		}
		for (Map.Entry<String, byte[]> e : content.entrySet()) {
			Path p = folder.resolve(e.getKey());
			if (Files.exists(p) && Arrays.equals(Files.readAllBytes(p), e.getValue())) {
				continue;
			}
			Files.createDirectories(p.getParent());
			Files.write(p, e.getValue());
			changed.add(e.getKey());
		}
		return changed;
	}
}
