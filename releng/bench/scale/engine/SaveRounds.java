import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import dev.branchstate.archive.ArchiveWriter;
import dev.branchstate.archive.Archives;
import dev.branchstate.archive.TreeFilter;
import dev.branchstate.archive.WriteOptions;
import dev.branchstate.archive.WriteResult;

/**
 * The save from scratch on the archive engine alone: the {@code bin/} folders of every project of a repository
 * written into one archive, as the state's derived-resources part holds them, several times in one JVM. The first
 * round is what a save in a JVM that has not run it yet costs (its code interpreted, then compiled while it runs), the
 * later ones what it costs once compiled. Usage: {@code SaveRounds <repository> <archive> <rounds> [<zstd level>]}.
 */
public final class SaveRounds {

	public static void main(String[] args) throws Exception {
		Path repo = Path.of(args[0]);
		Path archive = Path.of(args[1]);
		int rounds = Integer.parseInt(args[2]);
		int level = args.length > 3 ? Integer.parseInt(args[3]) : WriteOptions.DEFAULT_LEVEL;
		Archives.prepare();
		List<Path> projects;
		try (Stream<Path> children = Files.list(repo)) {
			projects = children.filter(p -> Files.isDirectory(p.resolve("bin"))).sorted().toList();
		}
		for (int round = 1; round <= rounds; round++) {
			Files.deleteIfExists(archive);
			long t0 = System.nanoTime();
			WriteResult result;
			try (ArchiveWriter writer = Archives.newWriter(archive, WriteOptions.defaults().withLevel(level))) {
				for (Path project : projects) {
					writer.addTree(project.resolve("bin"), project.getFileName() + "/bin/", TreeFilter.ALL);
				}
				result = writer.commit();
			}
			System.out.printf("round %d: %d ms, %d entries, %d MB in, archive %d MB (zstd level %d)%n", round,
					(System.nanoTime() - t0) / 1_000_000, result.entries(), result.uncompressedBytes() >> 20,
					Files.size(archive) >> 20, level);
		}
		Files.deleteIfExists(archive);
	}
}
