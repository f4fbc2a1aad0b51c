package dev.branchstate.core;

import java.io.File;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A stored state, as the catalog knows it.
 *
 * @param gitDir           the repository
 * @param commitId         the commit it was saved at (40 hex digits)
 * @param branches         the branches that pointed at it when saved (short names; empty for a detached HEAD)
 * @param archive          the state archive file
 * @param created          when it was saved
 * @param lastUsed         when it was last saved or restored
 * @param size             size of the archive in bytes
 * @param uncompressedSize bytes of data it holds
 * @param contributors     contributor id → version of the data it wrote
 * @param dirtyPaths       repository-relative paths that were modified in the working tree when it was saved
 */
public record StateInfo(File gitDir, String commitId, List<String> branches, Path archive, Instant created,
		Instant lastUsed, long size, long uncompressedSize, Map<String, Integer> contributors,
		List<String> dirtyPaths) {
}
