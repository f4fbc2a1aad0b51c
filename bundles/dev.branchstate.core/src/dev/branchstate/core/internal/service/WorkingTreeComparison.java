package dev.branchstate.core.internal.service;

import java.io.File;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.IPath;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.util.FS;

/**
 * What a restore knows of the working tree it compared with the state ({@link ChangedPaths}): when the comparison
 * began, and which paths it looked at — those Git tracks and the untracked files it does not ignore. A file Git
 * ignores may differ from the state without being found changed.
 * <p>
 * Git's index is read only when first asked (after the restore, by a contributor's background work), so that the
 * switch does not pay for it; a file force-added to the index in between counts as compared.
 */
public final class WorkingTreeComparison {

	private final Instant at;
	private final Set<String> dirty;
	/** Project → its folder in the work tree, repository-relative ("" at the root). */
	private final Map<IProject, String> prefixes;
	private final File indexFile;
	private final FS fs;
	private DirCache index;
	private boolean indexUnreadable;

	/**
	 * @param at    taken before the working tree was read
	 * @param dirty repository-relative paths Git found dirty then (untracked files it does not ignore included)
	 */
	WorkingTreeComparison(Instant at, Set<String> dirty, Repository repository, List<IProject> projects) {
		this.at = at;
		this.dirty = Set.copyOf(dirty);
		this.prefixes = ProjectPaths.prefixes(repository, projects);
		this.indexFile = repository.getIndexFile();
		this.fs = repository.getFS();
	}

	/** @return when the comparison began */
	public Instant at() {
		return at;
	}

	/**
	 * @param project a project of the restore
	 * @param path    project-relative path
	 * @return whether the comparison looked at it (Git tracks it, or it was an untracked file not ignored)
	 */
	public boolean compared(IProject project, IPath path) {
		String prefix = prefixes.get(project);
		if (prefix == null) {
			return false;
		}
		return compared(prefix.isEmpty() ? path.toString() : prefix + '/' + path.toString());
	}

	private synchronized boolean compared(String path) {
		if (dirty.contains(path)) {
			return true;
		}
		if (index == null && !indexUnreadable) {
			try {
				index = DirCache.read(indexFile, fs);
			} catch (IOException | RuntimeException e) {
				indexUnreadable = true; // nothing more is vouched for
			}
		}
		return index != null && index.findEntry(path) >= 0;
	}
}
