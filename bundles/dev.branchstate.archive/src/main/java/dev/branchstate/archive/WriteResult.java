package dev.branchstate.archive;

/**
 * What a committed write produced.
 *
 * @param entries entries in the archive
 * @param copiedEntries entries copied as compressed bytes from the previous archive (differential save)
 * @param uncompressedBytes sum of the entries' sizes
 * @param archiveSize size of the archive file in bytes
 */
public record WriteResult(long entries, long copiedEntries, long uncompressedBytes, long archiveSize) {
}
