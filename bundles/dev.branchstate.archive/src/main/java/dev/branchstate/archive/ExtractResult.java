package dev.branchstate.archive;

import java.util.List;

/**
 * What an extraction did to the target directory. Paths are relative to the target directory, {@code /}-separated,
 * with the extraction prefix stripped; directories end with {@code /}.
 *
 * @param written files, links and directories created or rewritten, in no particular order
 * @param skipped number of files not written because their content was already identical (differential)
 * @param removed files and directories removed by mirror mode
 * @param bytesWritten uncompressed bytes written to disk
 * @param timesSet files among the skipped whose content was identical but whose modification time was not the
 *            entry's (found by reading them): given the entry's time, so that the next differential extraction finds
 *            them identical by a stat; their content is untouched, but whoever keeps their time (a workspace)
 *            should look at them again
 */
public record ExtractResult(List<String> written, long skipped, List<String> removed, long bytesWritten,
		List<String> timesSet) {

	public ExtractResult {
		written = List.copyOf(written);
		removed = List.copyOf(removed);
		timesSet = List.copyOf(timesSet);
	}

	/** An extraction that set no file's time. */
	public ExtractResult(List<String> written, long skipped, List<String> removed, long bytesWritten) {
		this(written, skipped, removed, bytesWritten, List.of());
	}

	/** @return number of entries written */
	public int writtenCount() {
		return written.size();
	}

	/** @return number of paths removed */
	public int removedCount() {
		return removed.size();
	}
}
