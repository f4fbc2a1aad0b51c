package dev.branchstate.archive.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.branchstate.archive.TreeFilter;

/**
 * The scanner hands the walk every folder of the tree in the walk's order (depth first, names sorted), whatever the
 * number of threads reading and however far they may read ahead; a folder that cannot be read fails the walk there.
 */
class FolderScannerTest {

	@TempDir
	Path tmp;

	private Path tree() throws IOException {
		Path root = tmp.resolve("bin");
		for (int a = 0; a < 6; a++) {
			for (int b = 0; b < 5; b++) {
				Path dir = root.resolve("a" + a + "/b" + b);
				Files.createDirectories(dir);
				for (int c = 0; c < 3; c++) {
					Files.writeString(dir.resolve("C" + c + ".class"), a + "/" + b + "/" + c);
				}
				if (b == 2) {
					Files.createDirectories(dir.resolve("deep/deeper"));
					Files.writeString(dir.resolve("deep/deeper/D.class"), "d");
				}
			}
			Files.writeString(root.resolve("a" + a + "/F.class"), "f");
		}
		Files.createDirectories(root.resolve("a3/b1/scratch.tmp")); // a folder the filter excludes
		Files.writeString(root.resolve("top.class"), "top");
		return root;
	}

	/** What a walk of {@code next} listings sees: each folder's relative names, depth first. */
	private static void walk(FolderScanner scanner, List<String> seen) throws IOException {
		FolderScanner.Listing listing = scanner.next();
		seen.add(String.join(",", listing.rels()));
		for (int i = 0; i < listing.children().size(); i++) {
			if (listing.enter()[i]) {
				walk(scanner, seen);
			}
		}
	}

	/** The same walk, each folder read on the calling thread. */
	private static void reference(Path dir, String rel, TreeFilter filter, List<String> seen) throws IOException {
		FolderScanner.Listing listing = FolderScanner.list(dir, rel, filter);
		seen.add(String.join(",", listing.rels()));
		for (int i = 0; i < listing.children().size(); i++) {
			if (listing.enter()[i]) {
				reference(listing.children().get(i), listing.rels().get(i), filter, seen);
			}
		}
	}

	@ParameterizedTest(name = "{0} readers, {1} ahead")
	@CsvSource({ "1,256", "2,256", "3,1", "2,2", "4,5" })
	void everyFolderComesInTheWalksOrder(int readers, int ahead) throws IOException {
		Path root = tree();
		TreeFilter filter = TreeFilter.of(List.of(), List.of("**/*.tmp"));
		List<String> expected = new ArrayList<>();
		reference(root, "", filter, expected);
		assertThat(expected).hasSize(1 + 6 + 30 + 6 * 2).anySatisfy(s -> assertThat(s).contains("a3/b1/scratch.tmp"));

		for (int round = 0; round < 20; round++) {
			List<String> seen = new ArrayList<>();
			try (FolderScanner scanner = new FolderScanner(root, filter, readers, ahead)) {
				walk(scanner, seen);
				assertThatThrownBy(scanner::next).isInstanceOf(IllegalStateException.class);
			}
			assertThat(seen).containsExactlyElementsOf(expected);
		}
	}

	@Test
	void aFolderThatCannotBeReadFailsTheWalkNamingIt() {
		Path missing = tmp.resolve("gone");
		try (FolderScanner scanner = new FolderScanner(missing, TreeFilter.ALL, 2, 4)) {
			assertThatThrownBy(scanner::next).isInstanceOf(NoSuchFileException.class).hasMessageContaining("gone");
		}
	}

	@Test
	void closingBeforeTheEndStopsTheReaders() throws IOException {
		Path root = tree();
		List<Thread> before = scanThreads();
		try (FolderScanner scanner = new FolderScanner(root, TreeFilter.ALL, 2, 1)) {
			scanner.next(); // the readers now wait for the walk to take more
		}
		assertThat(scanThreads()).as("readers left running").containsExactlyInAnyOrderElementsOf(before);
	}

	private static List<Thread> scanThreads() {
		return Thread.getAllStackTraces().keySet().stream()
				.filter(t -> t.getName().equals("branchstate-archive-scan") && t.isAlive()).toList();
	}
}
