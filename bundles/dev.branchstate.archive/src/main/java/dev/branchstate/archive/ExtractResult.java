package dev.branchstate.archive;

import java.util.List;

/**
 * What an extraction did to the target directory. Paths are relative to the target directory, {@code /}-separated,
 * with the extraction prefix stripped; directories end with {@code /}.
 *
 * @param written files, links and directories created or rewritten, in no particular order
 * @param skipped number of files left untouched because their content was already identical (differential)
 * @param removed files and directories removed by mirror mode
 * @param bytesWritten uncompressed bytes written to disk
 */
public record ExtractResult(List<String> written, long skipped, List<String> removed, long bytesWritten) {

	public ExtractResult {
		written = List.copyOf(written);
		removed = List.copyOf(removed);
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
