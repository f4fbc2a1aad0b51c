package dev.branchstate.core.internal.switching;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.eclipse.core.resources.IContainer;
import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.core.runtime.jobs.ISchedulingRule;
import org.eclipse.core.runtime.jobs.MultiRule;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

import dev.branchstate.core.internal.service.ProjectPaths;

/**
 * Brings the workspace in sync with a checkout before a restore: only the files that differ between the tree of the
 * commit left and the tree of the commit entered (one walk over the two trees), in one workspace operation, instead of
 * a refresh of every project (a walk of every file, output folders included, which costs more than the restore of a
 * small change). Every project is refreshed as before when the commit left is unknown, the walk fails, or the change
 * is large enough that one walk of the projects is cheaper.
 */
final class CheckoutRefresh {

	/** Above this many changed files, the projects are refreshed whole. */
	static final int MAX_FILES = 2_000;

	private CheckoutRefresh() {
	}

	/**
	 * @param from the commit the checkout left, {@code null} when unknown
	 * @param to   the commit checked out
	 */
	static void run(Repository repository, String from, String to, List<IProject> projects, SubMonitor monitor)
			throws CoreException {
		List<String> changed = from == null ? null : changedFiles(repository, from, to);
		if (changed == null || changed.size() > MAX_FILES) {
			monitor.setWorkRemaining(projects.size());
			for (IProject project : projects) {
				project.refreshLocal(IResource.DEPTH_INFINITE, monitor.split(1));
			}
			return;
		}
		Map<IProject, String> prefixes = ProjectPaths.prefixes(repository, projects);
		IWorkspace workspace = ResourcesPlugin.getWorkspace();
		workspace.run(m -> {
			Set<IContainer> walked = new HashSet<>();
			for (String path : changed) {
				for (Map.Entry<IProject, String> p : prefixes.entrySet()) {
					String prefix = p.getValue();
					if (prefix.isEmpty() || path.startsWith(prefix + '/')) {
						refresh(p.getKey(), path.substring(prefix.isEmpty() ? 0 : prefix.length() + 1), walked);
					}
				}
			}
		}, MultiRule.combine(projects.stream().map(p -> workspace.getRuleFactory().refreshRule(p))
				.toArray(ISchedulingRule[]::new)), IWorkspace.AVOID_UPDATE, monitor); // one POST_CHANGE, at the end
	}

	/** @return the repository-relative paths of the files that differ between the two commits' trees, or null */
	private static List<String> changedFiles(Repository repository, String from, String to) {
		if (from.equals(to)) {
			return List.of();
		}
		List<String> paths = new ArrayList<>();
		try (RevWalk walk = new RevWalk(repository); TreeWalk tw = new TreeWalk(repository)) {
			tw.addTree(walk.parseCommit(ObjectId.fromString(from)).getTree());
			tw.addTree(walk.parseCommit(ObjectId.fromString(to)).getTree());
			tw.setRecursive(true);
			tw.setFilter(TreeFilter.ANY_DIFF);
			while (tw.next()) {
				paths.add(tw.getPathString());
				if (paths.size() > MAX_FILES) {
					break;
				}
			}
			return paths;
		} catch (IOException | RuntimeException e) {
			return null; // every project is refreshed
		}
	}

	/**
	 * Refreshes one file of the project: where it is (now) on disk, the file, or, when the workspace does not know its
	 * folder, the nearest folder it knows with all it holds (once); where it is gone, the file, or the topmost of its
	 * folders that went with it.
	 */
	private static void refresh(IProject project, String relative, Set<IContainer> walked) throws CoreException {
		IFile file = project.getFile(IPath.fromPortableString(relative));
		Path location = project.getLocation().toFile().toPath();
		if (Files.exists(location.resolve(relative), LinkOption.NOFOLLOW_LINKS)) {
			IContainer parent = file.getParent();
			if (parent.exists()) {
				file.refreshLocal(IResource.DEPTH_ZERO, null);
				return;
			}
			while (!parent.getParent().exists()) {
				parent = parent.getParent();
			}
			if (walked.add(parent)) {
				parent.refreshLocal(IResource.DEPTH_INFINITE, null);
			}
			return;
		}
		IResource gone = file;
		while (gone.getParent().getType() == IResource.FOLDER && gone.getParent().exists()
				&& !Files.exists(location.resolve(gone.getParent().getProjectRelativePath().toOSString()),
						LinkOption.NOFOLLOW_LINKS)) {
			gone = gone.getParent();
		}
		if (gone.exists() && (!(gone instanceof IContainer c) || walked.add(c))) {
			gone.refreshLocal(IResource.DEPTH_INFINITE, null);
		}
	}
}
