import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import dev.branchstate.archive.ArchiveWriter;
import dev.branchstate.archive.Archives;
import dev.branchstate.archive.WriteOptions;

/**
 * A state archive of as many entries as asked, for the heap measure at sizes no workspace here reaches: the names
 * are the JDK's own class files (every module of the running JDK, read through its jrt file system), as
 * {@code project-<k>/bin/<module>/<package path>/<class>.class}, project after project until the count is reached; each
 * entry holds the first 64 bytes of its class file (the index an open archive keeps does not depend on the data).
 *
 *   java ManyEntries <archive> <entries>
 */
public class ManyEntries {

	public static void main(String[] args) throws Exception {
		Path archive = Path.of(args[0]);
		int count = Integer.parseInt(args[1]);
		FileSystem jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
		List<Path> classes = new ArrayList<>();
		try (Stream<Path> s = Files.walk(jrt.getPath("/modules"))) {
			s.filter(p -> p.toString().endsWith(".class")).forEach(classes::add);
		}
		FileTime time = FileTime.fromMillis(System.currentTimeMillis());
		int written = 0;
		try (ArchiveWriter w = Archives.newWriter(archive, WriteOptions.defaults())) {
			for (int project = 0; written < count; project++) {
				for (Path c : classes) {
					if (written == count) {
						break;
					}
					String name = c.subpath(1, c.getNameCount()).toString(); // <module>/<package path>/<class>.class
					byte[] head = Files.readAllBytes(c);
					w.addBytes("project-" + project + "/bin/" + name,
							java.util.Arrays.copyOf(head, Math.min(64, head.length)), 0644, time);
					written++;
				}
			}
			w.commit();
		}
		System.out.printf("%s: %d entries from %d JDK class names%n", archive, written, classes.size());
	}
}
