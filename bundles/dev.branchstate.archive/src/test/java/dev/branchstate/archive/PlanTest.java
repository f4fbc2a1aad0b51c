package dev.branchstate.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ArchiveReader#plan}: a restore reads and checks what it will write, and only that, so that its cost follows
 * the change; what it writes is still checked before anything is written.
 */
class PlanTest {

	@TempDir
	Path tmp;

	private final byte[] same = TestTrees.noise(4000, 1);
	private final byte[] edited = TestTrees.noise(4000, 2);
	private final byte[] large = TestTrees.noise(300_000, 3);
	private final byte[] deleted = TestTrees.noise(5000, 4);

	/** @return an archive of p/ (same.bin, edited.bin, large.bin in 64 kB frames, gone/deleted.bin, a link) */
	private Path archive() throws Exception {
		Path src = Files.createDirectories(tmp.resolve("src"));
		Files.write(src.resolve("same.bin"), same);
		Files.write(src.resolve("edited.bin"), edited);
		Files.write(src.resolve("large.bin"), large);
		Files.createDirectories(src.resolve("gone"));
		Files.write(src.resolve("gone/deleted.bin"), deleted);
		Files.createSymbolicLink(src.resolve("link"), src.getFileSystem().getPath("same.bin"));
		Path zip = tmp.resolve("state.zip");
		try (ArchiveWriter w = Archives.newWriter(zip, WriteOptions.defaults().withChunkSize(64 << 10))) {
			w.addTree(src, "p/", TreeFilter.ALL);
			w.commit();
		}
		return zip;
	}

	/** @return the target as a restore finds it: extracted once, then one file edited (same size) and one deleted */
	private Path target(ArchiveReader r) throws Exception {
		Path out = tmp.resolve("out");
		r.extract(out, ExtractOptions.defaults().withPrefix("p/"));
		Files.write(out.resolve("edited.bin"), TestTrees.noise(4000, 99));
		Files.delete(out.resolve("gone/deleted.bin"));
		return out;
	}

	@Test
	void aPlanNamesWhatDiffersAndTheExtractionWithItWritesExactlyThat() throws Exception {
		try (ArchiveReader r = Archives.open(archive())) {
			Path out = target(r);
			ExtractOptions options = ExtractOptions.defaults().withPrefix("p/").withDifferential(true);
			ExtractPlan plan = r.plan(out, options);
			assertThat(plan.toWrite()).containsExactlyInAnyOrder("p/edited.bin", "p/gone/deleted.bin", "p/link");
			assertThat(plan.identical()).isEqualTo(2);
			assertThat(plan.bytesToWrite()).isEqualTo(4000 + 5000 + "same.bin".length());

			ExtractResult result = r.extract(out, options.withPlan(plan).withMirror(true));
			assertThat(result.written()).containsExactlyInAnyOrder("edited.bin", "gone/deleted.bin");
			assertThat(result.skipped()).as("the identical files and the link already there").isEqualTo(3);
			assertThat(result.removed()).isEmpty();
			assertThat(Files.readAllBytes(out.resolve("edited.bin"))).isEqualTo(edited);
			assertThat(Files.readAllBytes(out.resolve("gone/deleted.bin"))).isEqualTo(deleted);
			assertThat(Files.readAllBytes(out.resolve("large.bin"))).isEqualTo(large);
			assertThat(r.plan(out, options).toWrite()).as("nothing differs after it").containsExactly("p/link");
		}
	}

	/**
	 * A project's output of a few hundred files, planned by several workers (its own threads, or a restore's executor
	 * shared by all its folders): the plan names exactly the files that differ, whichever worker looked at them.
	 */
	@Test
	void aFolderOfAFewHundredFilesIsPlannedTheSameOnSeveralWorkersAndOnAGivenExecutor() throws Exception {
		Path src = Files.createDirectories(tmp.resolve("bin"));
		for (int i = 0; i < 300; i++) {
			Path file = src.resolve("pkg" + i % 7 + "/C" + i + ".class");
			Files.createDirectories(file.getParent());
			Files.write(file, TestTrees.noise(200 + i, i));
		}
		Path zip = tmp.resolve("bin.zip");
		try (ArchiveWriter w = Archives.newWriter(zip, WriteOptions.defaults())) {
			w.addTree(src, "bin/", TreeFilter.ALL);
			w.commit();
		}
		ExecutorService executor = Executors.newFixedThreadPool(3);
		try (ArchiveReader r = Archives.open(zip)) {
			Path out = tmp.resolve("out");
			r.extract(out, ExtractOptions.defaults().withPrefix("bin/"));
			List<String> differing = new ArrayList<>();
			for (int i = 0; i < 300; i += 8) { // same size, other bytes: found by CRC-32, in every slice
				Path file = out.resolve("pkg" + i % 7 + "/C" + i + ".class");
				Files.write(file, TestTrees.noise(200 + i, 1000 + i));
				differing.add("bin/pkg" + i % 7 + "/C" + i + ".class");
			}
			ExtractOptions options = ExtractOptions.defaults().withPrefix("bin/").withDifferential(true);
			for (ExtractOptions o : List.of(options.withWorkers(1), options.withWorkers(4),
					options.withWorkers(3).withExecutor(executor))) {
				ExtractPlan plan = r.plan(out, o);
				assertThat(plan.toWrite()).as("%d workers", o.workers()).containsExactlyInAnyOrderElementsOf(differing);
				assertThat(plan.identical()).isEqualTo(300 - differing.size());
			}
		} finally {
			executor.shutdownNow();
		}
	}

	/**
	 * Two archives of the same files at other times (two builds of the same sources): with the entries of the one
	 * the target was extracted from as its known files, a plan of the other finds a file identical or not from the
	 * two CRC-32s, without reading it, and leaves its time; without them it reads every file.
	 */
	@Test
	void withTheKnownEntriesOfTheTargetsFilesTheyAreComparedWithoutBeingRead() throws Exception {
		Path older = archive();
		Path src = tmp.resolve("src");
		Files.write(src.resolve("edited.bin"), TestTrees.noise(4000, 7)); // the one file the build changed
		try (java.util.stream.Stream<Path> files = Files.walk(src)) {
			for (Path file : files.filter(Files::isRegularFile).toList()) {
				FileTime time = Files.getLastModifiedTime(file);
				Files.setLastModifiedTime(file, FileTime.fromMillis(time.toMillis() + 60_000));
			}
		}
		Path newer = tmp.resolve("newer.zip");
		try (ArchiveWriter w = Archives.newWriter(newer, WriteOptions.defaults().withChunkSize(64 << 10))) {
			w.addTree(src, "p/", TreeFilter.ALL);
			w.commit();
		}
		try (ArchiveReader r = Archives.open(older); ArchiveReader known = Archives.open(newer)) {
			Path out = tmp.resolve("out");
			known.extract(out, ExtractOptions.defaults().withPrefix("p/"));
			FileTime newerTime = Files.getLastModifiedTime(out.resolve("large.bin"));
			// a file of the size and time the known entry gives is taken to hold its content, as the plan takes a
			// file of the size and time of the entry it extracts: this one is not read
			Files.write(out.resolve("same.bin"), TestTrees.noise(4000, 98));
			Files.setLastModifiedTime(out.resolve("same.bin"), known.entry("p/same.bin").orElseThrow().lastModified());
			ExtractOptions options = ExtractOptions.defaults().withPrefix("p/").withDifferential(true);

			KnownContent content = r.knownContentOf(newer);
			assertThat(content.crc32("p/large.bin", Files.size(out.resolve("large.bin")), newerTime))
					.hasValue(known.entry("p/large.bin").orElseThrow().crc32());
			assertThat(content.crc32("p/large.bin", Files.size(out.resolve("large.bin")), FileTime.fromMillis(0)))
					.as("another time: nothing known").isEmpty();
			assertThat(content.crc32("p/link", 0, newerTime)).as("a link: no file").isEmpty();
			ExtractPlan plan = r.plan(out, options.withKnownFiles(content));

			assertThat(plan.toWrite()).containsExactlyInAnyOrder("p/edited.bin", "p/link");
			assertThat(plan.identical()).isEqualTo(3);
			ExtractResult result = r.extract(out, options.withPlan(plan));
			assertThat(result.written()).containsExactly("edited.bin");
			assertThat(Files.getLastModifiedTime(out.resolve("large.bin"))).isEqualTo(newerTime);
			assertThat(Files.readAllBytes(out.resolve("edited.bin"))).isEqualTo(edited);

			ExtractPlan unknown = r.plan(out, options);
			assertThat(unknown.toWrite()).as("read: same.bin differs").containsExactlyInAnyOrder("p/same.bin",
					"p/link");
			assertThat(unknown.identical()).isEqualTo(3);
		}
	}

	/**
	 * The known content of an archive whose central directory was damaged after it was written is refused, naming
	 * the archive: the checksum its writer recorded decides, after the last record was read.
	 */
	@Test
	void theKnownContentOfADamagedArchiveIsRefused() throws Exception {
		Path older = archive();
		Path damaged = tmp.resolve("damaged.zip");
		Files.copy(older, damaged);
		TestTrees.renameInCentralDirectory(damaged, "p/edited.bin", 2, 'E'); // p/Edited.bin
		try (ArchiveReader r = Archives.open(older)) {
			assertThatThrownBy(() -> r.knownContentOf(damaged)).isInstanceOfSatisfying(ArchiveException.class, e -> {
				assertThat(e.getArchive()).isEqualTo(damaged);
				assertThat(e.getMessage()).contains("damaged central directory");
			});
			Path absent = tmp.resolve("absent.zip");
			assertThatThrownBy(() -> r.knownContentOf(absent)).as("a state deleted meanwhile")
					.isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.getArchive()).isEqualTo(absent));
		}
	}

	/**
	 * The plan stats each file through its folder: files of a folder that is gone, or is now a file, are to be
	 * written, and the files of the folders around them, in the root too, are still found identical.
	 */
	@Test
	void theFilesOfAFolderGoneOrNowAFileAreToBeWritten() throws Exception {
		Path src = Files.createDirectories(tmp.resolve("src"));
		for (String name : List.of("top.bin", "a/1.bin", "a/b/2.bin", "a/b/c/3.bin", "d/4.bin", "e/5.bin")) {
			Files.createDirectories(src.resolve(name).getParent());
			Files.write(src.resolve(name), TestTrees.noise(100, name.length()));
		}
		Path zip = tmp.resolve("state.zip");
		try (ArchiveWriter w = Archives.newWriter(zip, WriteOptions.defaults())) {
			w.addTree(src, "p/", TreeFilter.ALL);
			w.commit();
		}
		try (ArchiveReader r = Archives.open(zip)) {
			Path out = tmp.resolve("out");
			ExtractOptions options = ExtractOptions.defaults().withPrefix("p/").withDifferential(true);
			r.extract(out, options);
			for (String gone : List.of("a/b/c/3.bin", "a/b/c", "a/b/2.bin", "a/b", "d/4.bin", "d")) {
				Files.delete(out.resolve(gone));
			}
			Files.write(out.resolve("a/b"), new byte[] { 1 });

			ExtractPlan plan = r.plan(out, options);
			assertThat(plan.toWrite()).containsExactlyInAnyOrder("p/a/b/2.bin", "p/a/b/c/3.bin", "p/d/4.bin");
			assertThat(plan.identical()).isEqualTo(3);
		}
	}

	/** Changes a letter of the name in the local header of the entry {@code name} (its central record stays). */
	private static void damageLocalHeaderName(Path zip, String name) throws Exception {
		byte[] bytes = Files.readAllBytes(zip);
		byte[] n = name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
		for (int i = 0; i + 30 + n.length <= bytes.length; i++) {
			if (bytes[i] == 'P' && bytes[i + 1] == 'K' && bytes[i + 2] == 3 && bytes[i + 3] == 4
					&& (bytes[i + 26] & 0xff | (bytes[i + 27] & 0xff) << 8) == n.length
					&& java.util.Arrays.equals(bytes, i + 30, i + 30 + n.length, n, 0, n.length)) {
				bytes[i + 30 + 2] ^= 0x20; // p/gone/ -> p/Gone/
				Files.write(zip, bytes);
				return;
			}
		}
		throw new AssertionError("no local header of " + name);
	}

	@Test
	void aFolderEntryIsMadeFromItsCentralRecordSoAPlannedCheckLeavesItsLocalHeaderOut() throws Exception {
		Path zip = archive();
		ExtractOptions options = ExtractOptions.defaults().withPrefix("p/").withDifferential(true);
		Path out;
		try (ArchiveReader r = Archives.open(zip)) {
			out = target(r);
		}
		damageLocalHeaderName(zip, "p/gone/");
		try (ArchiveReader r = Archives.open(zip)) {
			assertThatThrownBy(() -> r.verify(List.of("p/"), ExtractOptions.defaults()))
					.as("the whole archive's check reads every local header").isInstanceOf(ArchiveException.class)
					.hasMessageContaining("local header differs from the central directory");
			ExtractPlan plan = r.plan(out, options);
			r.verify(List.of("p/"), List.of(plan), ExtractOptions.defaults());
			r.extract(out, options.withPlan(plan).withMirror(true));
			assertThat(Files.readAllBytes(out.resolve("gone/deleted.bin"))).isEqualTo(deleted);
			assertThat(Files.readAllBytes(out.resolve("edited.bin"))).isEqualTo(edited);
		}
	}

	@Test
	void damageInAnEntryIdenticalOnDiskIsNotReadDamageInOneToWriteIsRefused() throws Exception {
		Path zip = archive();
		Path out;
		ExtractPlan plan;
		ExtractOptions options = ExtractOptions.defaults().withPrefix("p/").withDifferential(true);
		try (ArchiveReader r = Archives.open(zip)) {
			out = target(r);
			plan = r.plan(out, options);
		}
		TestTrees.damage(zip, large, 200_000); // identical on disk: the restore does not need it
		try (ArchiveReader r = Archives.open(zip)) {
			assertThatThrownBy(() -> r.verify(List.of("p/"), ExtractOptions.defaults()))
					.as("without the plan every entry is read").isInstanceOf(ArchiveException.class);
			r.verify(List.of("p/"), List.of(plan), ExtractOptions.defaults());
			r.extract(out, options.withPlan(plan));
			assertThat(Files.readAllBytes(out.resolve("edited.bin"))).isEqualTo(edited);
			assertThat(Files.readAllBytes(out.resolve("large.bin"))).isEqualTo(large);
		}
		Files.write(out.resolve("edited.bin"), TestTrees.noise(4000, 98));
		TestTrees.damage(zip, edited, 1000); // to be written: refused before anything is written
		try (ArchiveReader r = Archives.open(zip)) {
			ExtractPlan again = r.plan(out, options);
			assertThat(again.toWrite()).contains("p/edited.bin");
			assertThatThrownBy(() -> r.verify(List.of("p/"), List.of(again), ExtractOptions.defaults()))
					.isInstanceOfSatisfying(ArchiveException.class,
							e -> assertThat(e.getEntry()).isEqualTo("p/edited.bin"));
		}
	}

	@Test
	void aPlanIsForOneTargetAndPrefix() throws Exception {
		try (ArchiveReader r = Archives.open(archive())) {
			Path out = target(r);
			ExtractOptions options = ExtractOptions.defaults().withPrefix("p/").withDifferential(true);
			ExtractPlan plan = r.plan(out, options);
			assertThatThrownBy(() -> r.extract(tmp.resolve("elsewhere"), options.withPlan(plan)))
					.isInstanceOf(IllegalArgumentException.class).hasMessageContaining("elsewhere");
			assertThatThrownBy(() -> r.extract(out, options.withPrefix("p/gone/").withPlan(plan)))
					.isInstanceOf(IllegalArgumentException.class).hasMessageContaining("p/gone/");
			assertThat(Files.exists(tmp.resolve("elsewhere"))).isFalse();
		}
	}

	/** The lookup by prefix (a binary search over the names) finds what a scan of every entry finds, in its order. */
	@Test
	void entriesUnderAPrefixAreWhatAScanFinds() throws Exception {
		Path zip = tmp.resolve("names.zip");
		java.nio.file.attribute.FileTime time = java.nio.file.attribute.FileTime.fromMillis(1_700_000_000_000L);
		// (U+FF5E sorts after U+1F600 as UTF-16, before it as UTF-8: the index orders its names as UTF-8 bytes)
		List<String> names = List.of("a/x", "a!b", "a0", "a/", "b/c/d", "a/b/c", "ab/", "b/cd", "é/f", "a-",
				"\uff5e/g", "\ud83d\ude00/h", "\ud83d\ude00.txt");
		try (ArchiveWriter w = Archives.newWriter(zip, WriteOptions.defaults())) {
			for (String n : names) {
				if (n.endsWith("/")) {
					w.addDirectory(n, 0755, time);
				} else {
					w.addBytes(n, n.getBytes(java.nio.charset.StandardCharsets.UTF_8), 0644, time);
				}
			}
			w.commit();
		}
		try (ArchiveReader r = Archives.open(zip)) {
			for (String prefix : List.of("", "a", "a/", "a/b", "a!", "b/c", "b/c/", "é", "z", "a-", "\uff5e",
					"\ud83d\ude00", "\ud83d\ude00/")) {
				assertThat(r.entries(prefix)).as(prefix)
						.isEqualTo(r.entries().stream().filter(e -> e.name().startsWith(prefix)).toList());
			}
			for (String n : names) {
				assertThat(r.entry(n)).as(n).hasValueSatisfying(e -> assertThat(e.name()).isEqualTo(n));
			}
		}
	}

	/**
	 * Into an empty target a plan needs no stat; verify leaves its entries to the extraction when asked to, which
	 * checks each one before writing it: a damaged entry ends the extraction, and the caller finds in the target
	 * only what it did not hold before.
	 */
	@Test
	void intoAnEmptyTargetTheEntriesAreCheckedAsTheyAreWritten() throws Exception {
		Path zip = archive();
		TestTrees.damage(zip, large, 150_000);
		try (ArchiveReader r = Archives.open(zip)) {
			Path out = Files.createDirectories(tmp.resolve("empty"));
			ExtractOptions options = ExtractOptions.defaults().withPrefix("p/").withDifferential(true);
			ExtractPlan plan = r.plan(out, options);
			assertThat(plan.emptyTarget()).isTrue();
			assertThat(plan.toWrite()).hasSize(5);
			assertThat(plan.identical()).isZero();

			r.verify(List.of("p/"), List.of(plan), options.withEmptyTargetsCheckedWhileWritten(true));
			assertThatThrownBy(() -> r.verify(List.of("p/"), List.of(plan), options))
					.isInstanceOf(ArchiveException.class).hasMessageContaining("large.bin");
			assertThatThrownBy(() -> r.extract(out, options.withPlan(plan))).isInstanceOf(ArchiveException.class)
					.hasMessageContaining("large.bin");
			assertThat(out.resolve("large.bin")).doesNotExist();
		}
		try (ArchiveReader r = Archives.open(zip)) { // (plans read no entry data)
			Path absent = tmp.resolve("absent");
			assertThat(r.plan(absent, ExtractOptions.defaults().withPrefix("p/")).emptyTarget()).isTrue();
			assertThat(r.plan(tmp.resolve("src"), ExtractOptions.defaults().withPrefix("p/")).emptyTarget()).isFalse();
		}
	}
}
