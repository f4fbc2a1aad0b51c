package dev.branchstate.archive;

import java.nio.file.attribute.FileTime;
import java.util.OptionalInt;

/**
 * What is known of the content of a target's files without reading them ({@link ExtractOptions#withKnownFiles}): for
 * a file at an entry's place, the CRC-32 its content had while it had a given size and modification time (another
 * archive's entry of that name, written from the target or extracted into it; see
 * {@link ArchiveReader#knownContentOf}). Asked from the extraction's workers: thread-safe.
 */
@FunctionalInterface
public interface KnownContent {

	/**
	 * @param name         the entry's full name
	 * @param size         the file's size in bytes
	 * @param lastModified the file's modification time (compared to the 100 ns an archive keeps)
	 * @return the CRC-32 of the content of a file of that name, size and time, or empty when that is not known
	 */
	OptionalInt crc32(String name, long size, FileTime lastModified);
}
