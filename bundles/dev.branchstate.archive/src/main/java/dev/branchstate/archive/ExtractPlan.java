package dev.branchstate.archive;

import java.nio.file.Path;
import java.util.Set;

/**
 * What a differential extraction into one directory will write, found before anything is read from the archive's
 * data or written: the file and link entries whose target is not already identical (see
 * {@link ExtractOptions#withDifferential}), by a stat of each target file (and a CRC-32 of it when only its time
 * differs). Made by {@link ArchiveReader#plan}; used by
 * {@link ArchiveReader#verify(java.util.List, java.util.Collection, ExtractOptions)} to read and check only what will
 * be written, and by {@link ExtractOptions#withPlan} to write it without looking at the target again. Valid as long as nothing else writes in the target directory.
 *
 * @param target the target directory (absolute, normalized)
 * @param prefix the entry name prefix of the extraction ({@link ExtractOptions#prefix()})
 * @param toWrite full names of the file and link entries to write
 * @param identical number of file entries already identical in the target
 * @param bytesToWrite uncompressed size of the entries to write
 * @param emptyTarget whether the target directory held nothing (or did not exist): every entry is to be written,
 *            and no stat was needed to find it
 */
public record ExtractPlan(Path target, String prefix, Set<String> toWrite, long identical, long bytesToWrite,
		boolean emptyTarget) {

	public ExtractPlan {
		toWrite = Set.copyOf(toWrite);
	}

	/** @return whether the extraction writes this entry (full name) */
	public boolean writes(String name) {
		return toWrite.contains(name);
	}
}
