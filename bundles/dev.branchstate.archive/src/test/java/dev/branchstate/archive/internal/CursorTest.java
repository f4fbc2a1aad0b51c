package dev.branchstate.archive.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.archive.ArchiveWriter;
import dev.branchstate.archive.Archives;
import dev.branchstate.archive.WriteOptions;

class CursorTest {

	@TempDir
	Path tmp;

	/** Names asked in a walk's order, out of it, twice or absent: each finds its own entry or none. */
	@Test
	void aCursorFindsEveryNameInAnyOrder() throws Exception {
		Path zip = tmp.resolve("c.zip");
		FileTime time = FileTime.fromMillis(1_700_000_000_000L);
		List<String> files = List.of("a/x", "a/y", "b.txt", "b/z", "b/zz", "c");
		try (ArchiveWriter w = Archives.newWriter(zip, WriteOptions.defaults())) {
			w.addDirectory("a/", 0755, time);
			w.addDirectory("b/", 0755, time);
			for (String f : files) {
				w.addBytes(f, f.getBytes(StandardCharsets.UTF_8), 0644, time);
			}
			w.commit();
		}
		try (IndexedArchiveReader r = IndexedArchiveReader.open(zip)) {
			IndexedArchiveReader.Cursor cursor = r.new Cursor();
			// a walk's order ("b/" before "b.txt"), then back, absent names, a folder's name, the last name again
			for (String name : List.of("a/x", "a/y", "b/z", "b/zz", "b.txt", "c", "a/y", "a/", "nope", "b/z/", "", "c",
					"c")) {
				EntryRecord found = cursor.find(name.getBytes(StandardCharsets.UTF_8));
				if (files.contains(name) || name.equals("a/")) {
					assertThat(found).as(name).isNotNull();
					assertThat(found.name()).isEqualTo(name);
				} else {
					assertThat(found).as(name).isNull();
				}
			}
		}
	}
}
