package dev.branchstate.javaindex;

import java.time.Duration;
import java.util.List;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.IPath;

/**
 * What one indexing pass did for one project.
 *
 * @param project   the project
 * @param cause     why the pass ran
 * @param parsed    project-relative paths of the compilation units parsed (their content hash was new)
 * @param removed   project-relative paths of the compilation units dropped from the index
 * @param unchanged compilation units looked at whose content hash had not changed (not parsed)
 * @param vouched   of the unchanged ones, those not even read: the last restore compared the working tree with its
 *                  state and found them equal, and they have not changed since
 * @param duration  wall time of the pass
 */
public record IndexUpdate(IProject project, Cause cause, List<IPath> parsed, List<IPath> removed, int unchanged,
		int vouched, Duration duration) {

	/** Why an indexing pass ran. */
	public enum Cause {
		/** the project was opened or added, or its index was missing or unusable: every file was looked at */
		FULL,
		/** resource changes in the workspace */
		DELTA,
		/** the changed paths handed over after a Branchstate restore */
		RESTORE
	}
}
