package dev.branchstate.core.internal.service;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevTree;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * Projects whose description (.project) a checkout removed from disk, taken out of the workspace with their contents
 * left on disk, as EGit does after its own checkouts (only those whose description Git tracked: {@link #removedBy}).
 * <p>
 * Left in the workspace, such a project stays open with no description, its refresh fails ("The project description
 * file (.project) for 'x' is missing"), and at the next snapshot or save core.resources writes a description back into
 * the work tree ({@code SaveManager.saveMetaInfo}: "missing project metadata repaired"): an untracked file in the
 * repository, which then blocks the checkout back to a branch that has the project. (After a checkout while the IDE
 * was closed, core.resources closes it at start-up instead: {@code SaveManager.restoreMetaInfo}.) Removed, nothing of
 * it is written; what the checkout left in its folder (the git-ignored output folder) stays on disk, and importing the
 * project again when a branch brings it back makes it a project again (its builders then build it in full).
 */
public final class RemovedProjects {

	private RemovedProjects() {
	}

	/**
	 * @return the workspace's projects in {@code workTree} whose description is no longer on disk: open (a checkout
	 *         under the running IDE) or closed (core.resources closes a project whose description is missing when the
	 *         IDE starts: a checkout while it was closed)
	 */
	public static List<IProject> in(Path workTree) {
		Path root = workTree.toAbsolutePath().normalize();
		return Stream.of(ResourcesPlugin.getWorkspace().getRoot().getProjects()).filter(p -> {
			IPath location = p.getLocation();
			return location != null && location.toPath().toAbsolutePath().normalize().startsWith(root)
					&& !ProjectPaths.descriptionOnDisk(p);
		}).toList();
	}

	/**
	 * @return the projects of {@link #in} whose description the move of HEAD from {@code before} to {@code after}
	 *         deleted: tracked in {@code before}'s tree, not in {@code after}'s. A description Git does not track (a
	 *         repository that ignores .project, whose descriptions Eclipse writes; one that {@code git clean -x}
	 *         deleted) is Eclipse's to write again: such a project stays.
	 */
	public static List<IProject> removedBy(Repository git, String before, String after) throws IOException {
		File workTree = git.getWorkTree();
		List<IProject> gone = in(workTree.toPath());
		if (gone.isEmpty()) {
			return gone;
		}
		try (RevWalk walk = new RevWalk(git)) {
			RevTree beforeTree = walk.parseCommit(ObjectId.fromString(before)).getTree();
			RevTree afterTree = walk.parseCommit(ObjectId.fromString(after)).getTree();
			Path root = workTree.toPath().toAbsolutePath().normalize();
			List<IProject> removed = new ArrayList<>();
			for (IProject project : gone) {
				String description = root
						.relativize(project.getLocation().toPath().toAbsolutePath().normalize()
								.resolve(IProjectDescription.DESCRIPTION_FILE_NAME))
						.toString().replace(File.separatorChar, '/');
				try (TreeWalk inBefore = TreeWalk.forPath(git, description, beforeTree);
						TreeWalk inAfter = TreeWalk.forPath(git, description, afterTree)) {
					if (inBefore != null && inAfter == null) {
						removed.add(project);
					}
				}
			}
			return removed;
		}
	}

	/**
	 * Removes {@code gone} from the workspace in one workspace operation, never deleting anything on disk, and asks
	 * core.resources for a snapshot at its end: a project's deletion deletes its metadata area at once, while the
	 * workspace tree that no longer names it is written at the next snapshot (minutes later, by default). An IDE killed
	 * in between starts with a project that has no metadata area, closed at its default location, which blocks the
	 * import of the project when a checkout brings it back ("Could not write metadata"; the import removes such a
	 * project first, {@code Commands}).
	 *
	 * @return the projects removed: those of {@code gone} still in the workspace and still without a description
	 * @throws CoreException when core.resources refuses to remove one of them
	 */
	public static List<IProject> removeFromWorkspace(List<IProject> gone, IProgressMonitor monitor)
			throws CoreException {
		if (gone.isEmpty()) {
			return List.of();
		}
		List<IProject> removed = new ArrayList<>();
		IWorkspace workspace = ResourcesPlugin.getWorkspace();
		workspace.run(m -> {
			SubMonitor progress = SubMonitor.convert(m, gone.size());
			for (IProject project : gone) {
				// (checked again under the workspace's rule: another thread may have removed it, or a checkout
				// brought it back, since it was listed)
				if (project.exists() && !ProjectPaths.descriptionOnDisk(project)) {
					project.delete(IResource.NEVER_DELETE_PROJECT_CONTENT | IResource.FORCE, progress.split(1));
					removed.add(project);
				}
			}
			if (!removed.isEmpty()) {
				workspace.save(false, null); // (a snapshot, scheduled as this operation ends)
			}
		}, workspace.getRoot(), IWorkspace.AVOID_UPDATE, monitor);
		return removed;
	}
}
