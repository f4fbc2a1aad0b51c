package dev.branchstate.core;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.IPath;

/**
 * What a contributor gets to restore its data of one project from a stored state.
 */
public interface IRestoreContext {

	IProject project();

	/** @return the commit id the restored state was saved at */
	String stateCommitId();

	/** @return the commit id HEAD is at now */
	String currentCommitId();

	/** @return the version of this contributor that wrote the data */
	int dataVersion();

	/**
	 * @return project-relative paths of the files whose content differs between the state (its commit plus the
	 *         files that were dirty when it was saved) and the working tree now. Empty for an exact restore of a
	 *         clean state. Known when {@link IStateContributor#restore} and {@link IStateContributor#prepare} are
	 *         called; asked for in {@link IStateContributor#extractionTargets}, it waits until the working tree has
	 *         been compared (the restore plans while Git reads the working tree's status).
	 */
	Set<IPath> changedPaths();

	/**
	 * @return when the working tree was compared with the state to find {@link #changedPaths()} (taken just before
	 *         the comparison began), {@code null} when not known. A file of {@link #changedPathsCoverage covered} path
	 *         whose last change is older than that, by its inode change time (which no tool can set back), has the
	 *         content the comparison saw: the state's where it is not among the changed paths.
	 */
	default Instant changedPathsComparedAt() {
		return null;
	}

	/**
	 * @return whether the comparison behind {@link #changedPaths()} looked at a project-relative path: Git tracks it,
	 *         or it is an untracked file Git does not ignore. A file Git ignores may differ from the state without
	 *         being among the changed paths. The test may be kept and asked after the restore (Git's index is read
	 *         when it is first asked).
	 */
	default Predicate<IPath> changedPathsCoverage() {
		return path -> false;
	}

	/** @return the names this contributor wrote for this project, sorted */
	List<String> entryNames();

	/**
	 * @return whether this contributor wrote an entry of that name for this project (a lookup: cheaper than
	 *         {@link #entryNames()} for a contributor that wrote many)
	 */
	default boolean has(String name) {
		return entryNames().contains(name);
	}

	/**
	 * @return what the contributor's {@link IStateContributor#prepare} returned for this context; {@code null} when
	 *         it returned nothing
	 */
	default Object prepared() {
		return null;
	}

	/** @return the content of one entry (CRC-checked while read); the caller closes it */
	InputStream open(String name) throws IOException;

	/**
	 * Extracts the entries whose names start with {@code prefix} into {@code directory}, names relative to the
	 * prefix. Only files whose content differs from what is on disk are written; with {@code mirror}, files under
	 * {@code directory} that the state does not have are deleted.
	 *
	 * @return the files written or deleted, relative to {@code directory}
	 */
	ExtractResult extract(String prefix, Path directory, boolean mirror) throws IOException;

	/**
	 * @param written        files whose content was (re)written
	 * @param deleted        files and folders removed because the state does not have them (folders end with
	 *                       {@code /})
	 * @param unchanged      number of files left untouched because they were identical
	 * @param createdFolders folders the extraction created (each ending with {@code /})
	 */
	record ExtractResult(List<String> written, List<String> deleted, long unchanged, List<String> createdFolders) {

		public ExtractResult(List<String> written, List<String> deleted, long unchanged) {
			this(written, deleted, unchanged, List.of());
		}

		/**
		 * @return whether the extraction left the folder as it was: nothing written, deleted or created (then nothing
		 *         needs to be refreshed, say)
		 */
		public boolean changedNothing() {
			return written.isEmpty() && deleted.isEmpty() && createdFolders.isEmpty();
		}
	}
}
