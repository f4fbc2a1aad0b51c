package dev.branchstate.archive.internal;

/**
 * Which of the previous archive's files a sharing write continues: always a prefix of them (the positions of the
 * entries in them stay what they were), the rest of the previous archive's live entries copied into the new file.
 * <p>
 * Continuing every file, as writes did before, made each write add a file to the chain, even one that holds nothing
 * but its central directory (a save where nothing changed), until a write found the limit and copied everything. So
 * the files at the end of the chain that hold few live entries are not continued: what the new archive still shares
 * from them is copied, a few MB, instead of those files being kept for ever. Once written, an archive that shares
 * less than half of the files it continues continues none after all ({@code ParallelArchiveWriter}'s commit).
 */
final class Continuation {

	/** The most files a written archive continues. */
	static final int MAX_FILES = 8;
	/** Live bytes copied at most to continue fewer files: this share of the previous archive's live bytes. */
	static final int COPY_SHARE = 32;

	private Continuation() {
	}

	/**
	 * @param sizes each file's size, in order (the previous archive's own file last)
	 * @param live  the bytes of each file that are entries of the previous archive (local headers, names, data)
	 * @return how many of the files, from the first, to continue; 0 to copy every entry (a self-contained archive).
	 *         A prefix less than half of whose bytes are live is never continued; of the others, the shortest whose
	 *         files after it hold at most {@code 1/}{@value #COPY_SHARE} of the live bytes, else the longest (at most
	 *         {@value #MAX_FILES} files)
	 */
	static int filesToContinue(long[] sizes, long[] live) {
		long totalLive = 0;
		for (long l : live) {
			totalLive += l;
		}
		long budget = totalLive / COPY_SHARE;
		int best = 0;
		long prefixSize = 0;
		long prefixLive = 0;
		for (int k = 1; k <= Math.min(sizes.length, MAX_FILES); k++) {
			prefixSize += sizes[k - 1];
			prefixLive += live[k - 1];
			if (2 * prefixLive < prefixSize) {
				continue; // mostly replaced entries: continuing it would keep dead bytes
			}
			best = k;
			if (totalLive - prefixLive <= budget) {
				break;
			}
		}
		return best;
	}
}
