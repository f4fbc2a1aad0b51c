package dev.branchstate.archive.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which of the previous archive's files a sharing write continues: a prefix, short, and mostly live. */
class ContinuationTest {

	private static final long MB = 1L << 20;

	@Test
	void filesAtTheEndHoldingFewLiveBytesAreNotContinued() {
		// a save from scratch, then saves where little or nothing changed: their files are mostly central directory
		long[] sizes = { 2400 * MB, 50 * MB, 50 * MB, 50 * MB };
		long[] live = { 2300 * MB, 0, 2 * MB, 0 };
		assertThat(Continuation.filesToContinue(sizes, live)).isEqualTo(1);
	}

	@Test
	void aFileHoldingMuchOfTheLiveBytesIsContinued() {
		long[] sizes = { 2400 * MB, 700 * MB, 50 * MB };
		long[] live = { 1700 * MB, 650 * MB, 0 };
		assertThat(Continuation.filesToContinue(sizes, live)).isEqualTo(2);
	}

	@Test
	void aFirstFileMostlyDeadIsNotContinued() {
		long[] sizes = { 100 * MB, 100 * MB };
		assertThat(Continuation.filesToContinue(sizes, new long[] { 10 * MB, 40 * MB })).as("everything copied")
				.isZero();
		// the first mostly dead, the two together mostly live: both continued (the old rule: half the bytes live)
		assertThat(Continuation.filesToContinue(sizes, new long[] { 10 * MB, 95 * MB })).isEqualTo(2);
		long[] single = { 100 * MB };
		assertThat(Continuation.filesToContinue(single, new long[] { 40 * MB })).isZero();
		assertThat(Continuation.filesToContinue(single, new long[] { 90 * MB })).isEqualTo(1);
	}

	@Test
	void atMostMaxFilesAreContinued() {
		long[] sizes = new long[12];
		long[] live = new long[12];
		for (int i = 0; i < 12; i++) {
			sizes[i] = 100 * MB;
			live[i] = 90 * MB; // each file holds much: all would be continued, but for the limit
		}
		assertThat(Continuation.filesToContinue(sizes, live)).isEqualTo(Continuation.MAX_FILES);
	}
}
