package dev.branchstate.archive.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.archive.EntryType;

/** The writes of an extraction into a target that holds things in the way: never written through a link. */
class TargetTreeTest {

	@TempDir
	Path tmp;
	private Path root;
	private Path outside;
	private TargetTree tree;

	@BeforeEach
	void setUp() throws Exception {
		root = tmp.resolve("root");
		outside = Files.createDirectories(tmp.resolve("outside"));
		Files.writeString(outside.resolve("secret"), "keep");
		tree = new TargetTree(root);
		tree.create();
	}

	private static EntryRecord file(String name, int size) {
		EntryRecord r = new EntryRecord(name.getBytes(StandardCharsets.UTF_8), EntryType.FILE, 0644, FileTime.fromMillis(1_600_000_000_000L));
		r.size = size;
		return r;
	}

	private static ByteBuffer bytes(String s) {
		return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
	}

	@Test
	void aLinkWhereAFolderGoesIsReplacedNotFollowed() throws Exception {
		Files.createSymbolicLink(root.resolve("bin"), outside);

		tree.writeFile("bin/secret", bytes("new"), file("bin/secret", 3));

		assertThat(Files.isSymbolicLink(root.resolve("bin"))).isFalse();
		assertThat(Files.readString(root.resolve("bin/secret"))).isEqualTo("new");
		assertThat(Files.readString(outside.resolve("secret"))).isEqualTo("keep");
		assertThat(tree.written()).containsExactlyInAnyOrder("bin/", "bin/secret");
	}

	@Test
	void aLinkWhereAFileGoesIsReplacedNotWrittenThrough() throws Exception {
		Files.createSymbolicLink(root.resolve("A.class"), outside.resolve("secret"));

		tree.writeFile("A.class", bytes("class"), file("A.class", 5));

		assertThat(Files.isSymbolicLink(root.resolve("A.class"))).isFalse();
		assertThat(Files.readString(root.resolve("A.class"))).isEqualTo("class");
		assertThat(Files.readString(outside.resolve("secret"))).isEqualTo("keep");
	}

	@Test
	void anExistingLongerFileIsCutToTheEntryAndGetsItsTime() throws Exception {
		Files.writeString(root.resolve("A.class"), "a much longer old content");
		EntryRecord r = file("A.class", 3);

		tree.writeFile("A.class", bytes("new"), r);

		assertThat(Files.readString(root.resolve("A.class"))).isEqualTo("new");
		assertThat(Files.getLastModifiedTime(root.resolve("A.class"))).isEqualTo(r.mtime());
	}

	@Test
	void aTemporaryFileMovesIntoPlaceOverAFolderAndLeavesNothingBehind() throws Exception {
		Files.createDirectories(root.resolve("pkg/Big.bin/inner"));
		EntryRecord r = file("pkg/Big.bin", 4);
		TargetTree.Temporary t = tree.newTemporary("pkg/Big.bin", r);
		t.channel().write(bytes("data"));
		t.channel().close();

		tree.moveIntoPlace(t, "pkg/Big.bin", r);

		assertThat(Files.readString(root.resolve("pkg/Big.bin"))).isEqualTo("data");
		try (var s = Files.list(root.resolve("pkg"))) {
			assertThat(s.map(p -> p.getFileName().toString())).containsExactly("Big.bin");
		}
	}

	@Test
	void aDiscardedTemporaryFileIsGone() throws Exception {
		TargetTree.Temporary t = tree.newTemporary("x/y.bin", file("x/y.bin", 1));

		TargetTree.discard(t);

		assertThat(t.path()).doesNotExist();
		assertThat(t.channel().isOpen()).isFalse();
	}

	@Test
	void linksInsideAreMadeOnceAndLinksOutsideAreNotContained() throws Exception {
		Path inside = root.getFileSystem().getPath("../lib/a.jar");
		assertThat(tree.contains("p/link.jar", inside)).isTrue();
		assertThat(tree.contains("link.jar", root.getFileSystem().getPath("../outside/secret"))).isFalse();
		assertThat(tree.contains("link.jar", outside.resolve("secret"))).isFalse();

		assertThat(tree.link("p/link.jar", inside)).isTrue();
		assertThat(tree.link("p/link.jar", inside)).isFalse();
		assertThat(Files.readSymbolicLink(root.resolve("p/link.jar"))).isEqualTo(inside);
	}

	@Test
	void mirrorDeletesWhatIsNotExpectedWithoutFollowingLinks() throws Exception {
		tree.writeFile("keep/A.class", bytes("a"), file("keep/A.class", 1));
		tree.writeFile("stale/B.class", bytes("b"), file("stale/B.class", 1));
		Files.writeString(root.resolve("keep/Old.class"), "old");
		Files.createSymbolicLink(root.resolve("keep/out"), outside);

		var removed = tree.mirror(expected("keep/", "keep/A.class"), true, false, new ArrayList<>());

		assertThat(removed).containsExactlyInAnyOrder("stale/", "keep/Old.class", "keep/out");
		assertThat(root.resolve("keep/A.class")).exists();
		assertThat(root.resolve("stale")).doesNotExist();
		assertThat(Files.exists(root.resolve("keep/out"), LinkOption.NOFOLLOW_LINKS)).isFalse();
		assertThat(Files.readString(outside.resolve("secret"))).isEqualTo("keep");
	}

	private static ExpectedTree expected(String... names) {
		Set<String> files = Arrays.stream(names).filter(n -> !n.endsWith("/")).collect(Collectors.toSet());
		return new ExpectedTree("", records(Arrays.asList(names)), files::contains, key -> null); // no time vouches
	}

	/** A folder's files counted from records that share its name in a page, in order or not, as from strings. */
	@Test
	void anExpectedTreeCountsTheFilesOfEachFolderHoweverTheirRecordsHoldTheirNames() {
		List<String> names = List.of("p/", "p/a/", "p/a/x", "p/a/y", "p/a/z", "p/b/", "p/b/w", "p/a/v", "p/b/c/",
				"p/b/c/u", "p/t", "p/a/s");
		List<EntryRecord> whole = names.stream().map(n -> new EntryRecord(n.getBytes(StandardCharsets.UTF_8),
				n.endsWith("/") ? EntryType.DIRECTORY : EntryType.FILE, 0644, FileTime.fromMillis(0))).toList();
		for (List<EntryRecord> entries : List.of(records(names), whole)) {
			ExpectedTree tree = new ExpectedTree("p/", entries, n -> true, key -> null);
			assertThat(tree.get("p").files).isEqualTo(1);
			assertThat(tree.get("p").folders).containsExactlyInAnyOrder("a", "b");
			assertThat(tree.get("p/a").files).isEqualTo(5);
			assertThat(tree.get("p/b").files).isEqualTo(1);
			assertThat(tree.get("p/b").folders).containsExactly("c");
			assertThat(tree.get("p/b/c").files).isEqualTo(1);
		}
	}

	/** @return records of the names as the reader makes them: each folder's name once in a page */
	private static List<EntryRecord> records(List<String> names) {
		byte[][] utf8 = names.stream().map(n -> n.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
		NamePages pages = new NamePages(Arrays.stream(utf8).mapToLong(b -> b.length).sum());
		List<EntryRecord> records = new ArrayList<>();
		for (byte[] b : utf8) {
			pages.place(b, 0, b.length);
			records.add(pages.record(b.length, b[b.length - 1] == '/' ? EntryType.DIRECTORY : EntryType.FILE, 0644, 0));
		}
		return records;
	}

	@Test
	void mirrorFindsWhatIsNotExpectedBelowFoldersThatHoldAsManyNamesAsExpected() throws Exception {
		for (String f : List.of("a/x.class", "a/b/y.class", "a/b/z.class")) {
			tree.writeFile(f, bytes("1"), file(f, 1));
		}

		// root holds 1 name as expected, a/ 2 (x.class and b/): only a/b/ is looked at name by name
		var removed = tree.mirror(expected("a/x.class", "a/b/y.class"), true, false, new ArrayList<>());

		assertThat(removed).containsExactly("a/b/z.class");
		assertThat(root.resolve("a/b/y.class")).exists();
		assertThat(root.resolve("a/x.class")).exists();
	}

	@Test
	void mirrorLooksUpEveryNameWhenAnExpectedNameMayBeMissing() throws Exception {
		tree.writeFile("a.class", bytes("1"), file("a.class", 1));
		tree.writeFile("extra.class", bytes("1"), file("extra.class", 1));

		// 2 names, 2 expected, but link.jar (say an unsafe link left out) is not there: extra.class is
		var removed = tree.mirror(expected("a.class", "link.jar"), false, false, new ArrayList<>());

		assertThat(removed).containsExactly("extra.class");
	}
	@Test
	void aFolderWhoseTimeVouchesForItsNamesIsNotListedAnyOtherIs() throws Exception {
		for (String f : List.of("a/x.class", "a/b/y.class", "c/z.class")) {
			tree.writeFile(f, bytes("1"), file(f, 1));
		}
		FileTime listedAt = FileTime.fromMillis(1_600_000_000_000L);
		List<String> names = List.of("a/", "a/x.class", "a/b/", "a/b/y.class", "c/", "c/z.class");
		Set<String> files = Set.of("a/x.class", "a/b/y.class", "c/z.class");
		ExpectedTree expected = new ExpectedTree("", records(names), files::contains, key -> listedAt);
		Files.writeString(root.resolve("a/b/new.class"), "made since"); // a/b's time is now, not listedAt
		Files.writeString(root.resolve("c/hidden.class"), "time set back");
		Files.setLastModifiedTime(root.resolve("a"), listedAt);
		Files.setLastModifiedTime(root.resolve("c"), listedAt);

		List<String> listed = new ArrayList<>();
		var removed = tree.mirror(expected, true, true, listed);

		// a/ and c/ are not listed: their time vouches for them; a/b/, whose time does not, is
		assertThat(listed).containsExactlyInAnyOrder("", "a/b");
		assertThat(removed).containsExactly("a/b/new.class");
		assertThat(root.resolve("c/hidden.class")).exists();

		// on a file system whose folder times may not follow their names, every folder is listed
		listed.clear();
		assertThat(tree.mirror(expected, true, false, listed)).containsExactly("c/hidden.class");
		assertThat(listed).containsExactlyInAnyOrder("", "a", "a/b", "c");
	}
}
