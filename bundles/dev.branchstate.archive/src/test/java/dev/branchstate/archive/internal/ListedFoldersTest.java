package dev.branchstate.archive.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.archive.ArchiveReader;
import dev.branchstate.archive.ArchiveWriter;
import dev.branchstate.archive.Archives;
import dev.branchstate.archive.ExtractOptions;
import dev.branchstate.archive.TreeFilter;
import dev.branchstate.archive.WriteOptions;

/**
 * A folder entry is marked listed only when its folder held no name but the archive's and its time was settled; a
 * mirroring extraction then does not list a folder whose time is still that one, and lists every other.
 */
class ListedFoldersTest {

	@TempDir
	Path tmp;

	private static final FileTime OLD = FileTime.fromMillis(1_600_000_000_000L);

	private Path archive(Path src) throws Exception {
		Path zip = tmp.resolve("state.zip");
		try (ArchiveWriter w = Archives.newWriter(zip, WriteOptions.defaults())) {
			w.addTree(src, "p/", TreeFilter.of(List.of(), List.of("**/*.tmp")));
			w.commit();
		}
		return zip;
	}

	@Test
	void onlyAFolderWholeInTheArchiveWithASettledTimeIsMarkedListed() throws Exception {
		Path src = tmp.resolve("src");
		for (String f : List.of("whole/A.class", "filtered/B.class", "filtered/scratch.tmp", "recent/C.class")) {
			Files.createDirectories(src.resolve(f).getParent());
			Files.writeString(src.resolve(f), f);
		}
		Files.setLastModifiedTime(src.resolve("whole"), OLD);
		Files.setLastModifiedTime(src.resolve("filtered"), OLD);
		// recent/ keeps the time its file just gave it: a name made in it a moment later could leave it the same

		try (IndexedArchiveReader r = IndexedArchiveReader.open(archive(src))) {
			assertThat(r.record("p/whole/").listed).isTrue();
			assertThat(r.record("p/filtered/").listed).as("a name left out by the filter").isFalse();
			assertThat(r.record("p/recent/").listed).as("a time not settled").isFalse();
		}
	}

	@Test
	void aMirroringExtractionListsOnlyTheFoldersWhoseTimeNoLongerVouchesForThem() throws Exception {
		Path src = tmp.resolve("src");
		for (String f : List.of("a/A.class", "a/b/B.class", "c/C.class")) {
			Files.createDirectories(src.resolve(f).getParent());
			Files.writeString(src.resolve(f), f);
		}
		for (String d : List.of("a/b", "a", "c")) {
			Files.setLastModifiedTime(src.resolve(d), OLD);
		}
		Path out = tmp.resolve("out");
		ExtractOptions mirror = ExtractOptions.defaults().withPrefix("p/").withDifferential(true).withMirror(true);
		try (ArchiveReader r = Archives.open(archive(src))) {
			r.extract(out, mirror);
			assertThat(Files.getLastModifiedTime(out.resolve("a/b"))).as("made: given its entry's time").isEqualTo(OLD);

			Files.writeString(out.resolve("a/b/stale.class"), "a class of another branch");
			Files.writeString(out.resolve("c/unseen.class"), "time set back to the entry's, as no build does");
			Files.setLastModifiedTime(out.resolve("c"), OLD);

			var result = r.extract(out, mirror);

			assertThat(result.removed()).containsExactly("a/b/stale.class");
			assertThat(out.resolve("c/unseen.class")).as("c/ was not listed: its time vouched for it").exists();
			assertThat(Files.getLastModifiedTime(out.resolve("a/b"))).as("listed: given its time again")
					.isEqualTo(OLD);
		}
	}
}
