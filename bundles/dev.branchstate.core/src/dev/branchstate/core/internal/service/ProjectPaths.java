package dev.branchstate.core.internal.service;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.runtime.IPath;
import org.eclipse.jgit.lib.Repository;

import dev.branchstate.core.internal.contributors.ContributorRegistry;
import dev.branchstate.core.internal.contributors.DerivedResourcesContributor;

/**
 * Where the repository's paths lie among the workspace's projects: each project's folder in the work tree, and
 * which repository-relative paths are a project's sources (not its derived data, as the contributors name it).
 */
public final class ProjectPaths {

	private ProjectPaths() {
	}

	/**
	 * @return whether the project's description (.project) is on disk. A checkout to a branch without the project
	 *         deletes its folder and leaves it open in the workspace with no description; it is then no project of its
	 *         repository for Branchstate (not refreshed, saved or restored: core.resources' refresh of it fails), and
	 *         the switch takes it out of the workspace ({@link RemovedProjects}).
	 */
	public static boolean descriptionOnDisk(IProject project) {
		IPath location = project.getLocation();
		return location != null && location.append(IProjectDescription.DESCRIPTION_FILE_NAME).toFile().isFile();
	}

	/**
	 * @return the repository-relative location of each project ("" for a project at the work tree root); a project
	 *         outside the work tree, or whose folder is gone, is not in the map
	 */
	public static Map<IProject, String> prefixes(Repository repository, List<IProject> projects) {
		Map<IProject, String> result = new HashMap<>();
		Path workTree;
		try {
			workTree = repository.getWorkTree().toPath().toRealPath();
		} catch (IOException e) {
			workTree = repository.getWorkTree().toPath().toAbsolutePath();
		}
		for (IProject p : projects) {
			try {
				Path location = p.getLocation().toFile().toPath().toRealPath();
				if (location.startsWith(workTree)) {
					result.put(p, workTree.relativize(location).toString().replace(File.separatorChar, '/'));
				}
			} catch (IOException e) {
				// a project whose folder is gone has nothing to rebuild
			}
		}
		return result;
	}

	/** @return the dirty paths that lie in a project and are not derived data */
	static List<String> relevant(Set<String> paths, Repository repository, List<IProject> projects,
			ContributorRegistry contributors) {
		List<String> result = new ArrayList<>();
		sources(paths, repository, projects, contributors, (path, project, relative) -> {
			result.add(path);
			return false; // once per path
		});
		return result;
	}

	/** @return the repository-relative paths that are a project's sources, project-relative, per project */
	static Map<IProject, Set<IPath>> byProject(Set<String> paths, Repository repository, List<IProject> projects,
			ContributorRegistry contributors) {
		Map<IProject, Set<IPath>> result = new LinkedHashMap<>();
		sources(paths, repository, projects, contributors, (path, project, relative) -> {
			result.computeIfAbsent(project,
					k -> new TreeSet<>((x, y) -> x.toPortableString().compareTo(y.toPortableString()))).add(relative);
			return true;
		});
		return result;
	}

	/** Told each repository-relative path that lies in a project and is not derived data there. */
	private interface SourceVisitor {
		/** @return whether to go on with the next project holding {@code path} (nested projects) */
		boolean visit(String path, IProject project, IPath relative);
	}

	private static void sources(Set<String> paths, Repository repository, List<IProject> projects,
			ContributorRegistry contributors, SourceVisitor visitor) {
		Map<IProject, String> prefixes = prefixes(repository, projects);
		Function<IProject, List<IPath>> named = namedFolders(contributors);
		for (String path : paths) {
			for (Map.Entry<IProject, String> p : prefixes.entrySet()) {
				String prefix = p.getValue();
				if (prefix.isEmpty() || path.startsWith(prefix + '/')) {
					IPath relative = IPath.fromPortableString(prefix.isEmpty() ? path : path.substring(prefix.length() + 1));
					if (!DerivedResourcesContributor.isDerived(p.getKey(), relative, named.apply(p.getKey()))
							&& !visitor.visit(path, p.getKey(), relative)) {
						break;
					}
				}
			}
		}
	}

	/** @return the folders contributors name as derived, per project, each project's asked once */
	private static Function<IProject, List<IPath>> namedFolders(ContributorRegistry contributors) {
		Map<IProject, List<IPath>> cache = new HashMap<>();
		return project -> cache.computeIfAbsent(project, contributors::derivedFolders);
	}
}
