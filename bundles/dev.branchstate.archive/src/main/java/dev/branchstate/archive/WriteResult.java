package dev.branchstate.archive;

/**
 * What a committed write produced.
 *
 * @param entries entries in the archive
 * @param copiedEntries entries copied as compressed bytes from the previous archive, or shared with it (differential
 *            save)
 * @param uncompressedBytes sum of the entries' sizes
 * @param archiveSize size of the archive's bytes: its file's size, plus those of the files it continues when it was
 *            written {@linkplain WriteOptions#withSharing sharing} the previous archive's entries
 * @param writtenBytes what the write added to the disk: the size of the archive's own file
 */
public record WriteResult(long entries, long copiedEntries, long uncompressedBytes, long archiveSize,
		long writtenBytes) {
}
