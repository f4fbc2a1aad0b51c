package dev.branchstate.archive.internal;

/**
 * Which of the previous archive's files a sharing write continues: always a prefix of them (the positions of the
 * entries in them stay what they were), the rest of the previous archive's live entries copied into the new file.
 * <p>
 * A write sharing the entries of a previous archive continues, unless this says otherwise, every file of it; each
 * write then adds a file to the chain, even one that holds nothing but its central directory (a save where nothing
 * changed), and the chain grows until a write copies everything. So the files at the end of the chain whose live
 * entries are few are not continued: their entries the new archive still holds are copied, a few MB instead of a file
 * kept for ever.
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
