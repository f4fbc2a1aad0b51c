package dev.branchstate.core.internal.contributors;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import org.eclipse.core.resources.IContainer;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IResourceProxy;
import org.eclipse.core.resources.ProjectScope;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.Platform;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.core.runtime.preferences.IScopeContext;
import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.osgi.util.NLS;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.core.IRestoreContext;
import dev.branchstate.core.ISaveContext;
import dev.branchstate.core.IStateContributor;
import dev.branchstate.core.internal.Log;
import dev.branchstate.core.internal.Messages;

/**
 * Built-in contributor of derived resources: every resource of the project that Eclipse marks derived (output
 * folders, generated sources), every folder another contributor names as its builder's output
 * ({@link IStateContributor#derivedFolders}: a Java project's output folders) and every folder named by the
 * {@link BranchstatePreferences#DERIVED_FOLDERS} globs.
 * <p>
 * Archive layout of its part: {@code roots} (one line per root: {@code D<TAB>path} or {@code F<TAB>path},
 * project-relative) and {@code tree/<path>...} (the files). Restore is differential and mirrors each folder root
 * (only differing files written, stale files removed), removes current derived roots that the state does not
 * have, then refreshes the roots and marks them derived: a folder the workspace knows, where the extraction changed
 * up to one file in eight, only at what the extraction changed (a refresh of the whole folder stats every file), the
 * others whole. A root that holds a Git-tracked file is never saved,
 * written or deleted. On failure or cancel the roots being restored are emptied so that builders rebuild them.
 */
public final class DerivedResourcesContributor implements IStateContributor {

	public static final String ID = "dev.branchstate.core.derived"; //$NON-NLS-1$
	static final String ROOTS = "roots"; //$NON-NLS-1$
	static final String TREE = "tree/"; //$NON-NLS-1$

	/** A derived folder ({@code folder == true}) or file, project-relative, '/'-separated. */
	record Root(String path, boolean folder) {
	}

	/** The registry whose contributors name output folders; none when created outside a registry. */
	private volatile ContributorRegistry namingRegistry;

	/** Called by the registry that created this contributor: its contributors name output folders. */
	void foldersNamedBy(ContributorRegistry registry) {
		this.namingRegistry = registry;
	}

	private List<IPath> named(IProject project) {
		ContributorRegistry registry = namingRegistry;
		return registry == null ? List.of() : registry.derivedFolders(project);
	}

	/**
	 * 2: saved only from a complete build. A state of version 1 may hold the derived files of a build that had not run or was
	 * interrupted (a branch left before it was built), so it is not restored.
	 */
	@Override
	public int version() {
		return 2;
	}

	@Override
	public boolean appliesTo(IProject project) {
		return project.isAccessible() && project.getLocation() != null;
	}

	@Override
	public void save(ISaveContext context, IProgressMonitor monitor) throws CoreException {
		IProject project = context.project();
		SubMonitor sub = SubMonitor.convert(monitor, NLS.bind(Messages.Contributors_derivedSave, project.getName()),
				10);
		Path location = project.getLocation().toFile().toPath();
		List<Root> roots = untracked(project, location, roots(project, location, named(project)));
		sub.worked(2);
		StringBuilder index = new StringBuilder();
		SubMonitor loop = sub.split(8).setWorkRemaining(Math.max(1, roots.size()));
		try {
			for (Root root : roots) {
				Path file = location.resolve(root.path());
				if (root.folder()) {
					context.addTree(TREE + root.path() + '/', file, List.of(), List.of());
				} else {
					context.addFile(TREE + root.path(), file);
				}
				index.append(root.folder() ? 'D' : 'F').append('\t').append(root.path()).append('\n');
				loop.split(1);
			}
			context.addBytes(ROOTS, index.toString().getBytes(StandardCharsets.UTF_8));
		} catch (IOException e) {
			throw new CoreException(Status.error(NLS.bind(Messages.Contributors_failed, ID, project.getName()), e));
		}
	}

	/** The folders {@link #restore} extracts into: the saved derived folders that hold no tracked file. */
	@Override
	public Map<String, Path> extractionTargets(IRestoreContext context) throws CoreException {
		Path location = context.project().getLocation().toFile().toPath();
		RestoreRoots roots = restoreRoots(context, location);
		Map<String, Path> targets = new LinkedHashMap<>();
		for (Root root : roots.safe()) {
			if (root.folder() && roots.saved().contains(root)) {
				targets.put(TREE + root.path() + '/', location.resolve(root.path()));
			}
		}
		return targets;
	}

	/**
	 * @param saved the derived roots of the state
	 * @param safe the roots a restore writes or removes: the state's and the project's now, none holding a tracked
	 *        file
	 */
	private record RestoreRoots(List<Root> saved, List<Root> safe) {
	}

	private RestoreRoots restoreRoots(IRestoreContext context, Path location) throws CoreException {
		IProject project = context.project();
		List<Root> saved;
		try {
			saved = context.has(ROOTS) ? parse(context) : List.of();
		} catch (IOException e) {
			throw new CoreException(Status.error(NLS.bind(Messages.Contributors_failed, ID, project.getName()), e));
		}
		Map<String, Root> current = new LinkedHashMap<>();
		for (Root r : roots(project, location, named(project))) {
			current.put(r.path(), r);
		}
		List<Root> all = new ArrayList<>(saved);
		current.values().stream().filter(r -> saved.stream().noneMatch(s -> s.path().equals(r.path())))
				.forEach(all::add);
		return new RestoreRoots(saved, untracked(project, location, all));
	}

	@Override
	public void restore(IRestoreContext context, IProgressMonitor monitor) throws CoreException {
		IProject project = context.project();
		SubMonitor sub = SubMonitor.convert(monitor,
				NLS.bind(Messages.Contributors_derivedRestore, project.getName()), 20);
		Path location = project.getLocation().toFile().toPath();
		RestoreRoots roots = restoreRoots(context, location);
		List<Root> saved = roots.saved();
		List<Root> safe = roots.safe();
		sub.worked(1);
		List<Root> toRefresh = new ArrayList<>();
		Map<Root, IRestoreContext.ExtractResult> changes = new LinkedHashMap<>();
		try {
			SubMonitor loop = sub.split(15).setWorkRemaining(Math.max(1, safe.size()));
			for (Root root : safe) {
				loop.checkCanceled();
				Path target = location.resolve(root.path());
				toRefresh.add(root);
				if (!saved.contains(root)) {
					deleteTree(target); // stale: the state has no such derived resource
				} else if (root.folder()) {
					boolean folderBefore = Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS);
					if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
						Files.delete(target);
					}
					IRestoreContext.ExtractResult result = context.extract(TREE + root.path() + '/', target, true);
					if (folderBefore && project.getFolder(root.path()).exists() && fewChanges(result)) {
						// the workspace knows the folder: no refresh of it (a walk of every file), only of what the
						// extraction changed, and the derived flag
						toRefresh.remove(root);
						changes.put(root, result);
					}
				} else {
					restoreFile(context, TREE + root.path(), target);
				}
				loop.worked(1);
			}
		} catch (IOException | RuntimeException e) {
			emptyRoots(location, safe);
			refresh(project, safe, saved, sub.split(4));
			if (e instanceof RuntimeException re) {
				throw re;
			}
			throw new CoreException(Status.error(NLS.bind(Messages.Contributors_failed, ID, project.getName()), e));
		}
		refresh(project, toRefresh, saved, sub.split(3));
		for (Map.Entry<Root, IRestoreContext.ExtractResult> c : changes.entrySet()) {
			refreshChanged(project.getFolder(c.getKey().path()), c.getValue());
		}
		markDerived(project, safe.stream().filter(r -> !toRefresh.contains(r)).toList(), saved, sub.split(1));
	}

	/**
	 * @return whether refreshing what an extraction changed one by one is cheaper than a refresh of the whole folder
	 *         (which stats every file): up to one file in eight changed
	 */
	private static boolean fewChanges(IRestoreContext.ExtractResult r) {
		long changed = (long) r.written().size() + r.deleted().size() + r.createdFolders().size();
		return changed * 8 <= r.unchanged() + r.written().size();
	}

	/**
	 * Brings the workspace in line with what an extraction into {@code folder} changed: each folder it created
	 * (with what it holds), each file it wrote outside those, each file or folder it deleted; the rest of the folder
	 * was identical on disk and in the workspace.
	 */
	private static void refreshChanged(IContainer folder, IRestoreContext.ExtractResult r) throws CoreException {
		Set<String> created = new HashSet<>(r.createdFolders());
		Set<IContainer> walked = new HashSet<>();
		for (String c : r.createdFolders()) {
			if (!created.contains(parentOf(c))) { // the topmost ones: a walk takes in what they hold
				refreshFrom(folder.getFolder(IPath.fromPortableString(c)), walked);
			}
		}
		for (String w : r.written()) {
			String parent = parentOf(w);
			while (!parent.isEmpty() && !created.contains(parent)) {
				parent = parentOf(parent);
			}
			if (parent.isEmpty()) { // not inside a created folder
				refreshFrom(folder.getFile(IPath.fromPortableString(w)), walked);
			}
		}
		for (String d : r.deleted()) {
			IPath path = IPath.fromPortableString(d);
			IResource gone = d.endsWith("/") ? folder.getFolder(path) : folder.getFile(path); //$NON-NLS-1$
			if (gone.getParent().exists()) {
				gone.refreshLocal(IResource.DEPTH_ZERO, null);
			}
		}
	}

	/** @return the folder that holds a name relative to a root ("a/b/" for "a/b/c" and "a/b/c/"), "" at the root */
	private static String parentOf(String name) {
		int end = name.endsWith("/") ? name.length() - 1 : name.length(); //$NON-NLS-1$
		int slash = name.lastIndexOf('/', end - 1);
		return slash < 0 ? "" : name.substring(0, slash + 1); //$NON-NLS-1$
	}

	/**
	 * Refreshes one resource, or, when the workspace does not know its folder (out of sync before the restore), the
	 * nearest folder it knows, with all it holds (once).
	 */
	private static void refreshFrom(IResource resource, Set<IContainer> walked) throws CoreException {
		IContainer parent = resource.getParent();
		if (parent.exists()) {
			resource.refreshLocal(resource.getType() == IResource.FILE ? IResource.DEPTH_ZERO : IResource.DEPTH_INFINITE,
					null);
			return;
		}
		while (!parent.getParent().exists()) {
			parent = parent.getParent();
		}
		if (walked.add(parent)) {
			parent.refreshLocal(IResource.DEPTH_INFINITE, null);
		}
	}

	/** Marks restored roots that needed no refresh derived (as {@link #refresh} does for the others). */
	private static void markDerived(IProject project, List<Root> roots, List<Root> saved, SubMonitor monitor)
			throws CoreException {
		monitor.setWorkRemaining(Math.max(1, roots.size()));
		for (Root r : roots) {
			IResource restored = r.folder() ? project.getFolder(r.path()) : project.getFile(r.path());
			if (saved.contains(r) && restored.exists() && !restored.isDerived()) {
				restored.setDerived(true, null);
			}
			monitor.worked(1);
		}
	}

	/**
	 * Fail-safe of the service: removes the project's derived data (every derived root that holds no tracked file)
	 * so that builders rebuild it, when a restore cannot be completed after derived files were already written.
	 *
	 * @param named the folders contributors name as derived ({@link ContributorRegistry#derivedFolders})
	 */
	public static void discard(IProject project, List<IPath> named) throws CoreException {
		if (!project.isAccessible() || project.getLocation() == null) {
			return;
		}
		Path location = project.getLocation().toFile().toPath();
		List<Root> roots = untracked(project, location, roots(project, location, named));
		emptyRoots(location, roots);
		for (Root r : roots) {
			(r.folder() ? project.getFolder(r.path()) : project.getFile(r.path()))
					.refreshLocal(IResource.DEPTH_INFINITE, null);
		}
	}

	/**
	 * @return the derived roots of the project now: resources marked derived, the existing folders that contributors
	 *         name, then the preference's globs
	 */
	static List<Root> roots(IProject project, Path location, List<IPath> named) throws CoreException {
		List<Root> roots = new ArrayList<>();
		for (IPath folder : named) {
			if (Files.isDirectory(location.resolve(folder.toOSString()), LinkOption.NOFOLLOW_LINKS)) {
				roots.add(new Root(folder.toPortableString(), true));
			}
		}
		project.accept((IResourceProxy proxy) -> {
			if (proxy.getType() == IResource.PROJECT) {
				return true;
			}
			if (proxy.isLinked() || proxy.isTeamPrivateMember()) {
				return false;
			}
			if (proxy.isDerived()) {
				roots.add(new Root(proxy.requestFullPath().makeRelative().removeFirstSegments(1).toString(),
						proxy.getType() != IResource.FILE));
				return false;
			}
			return proxy.getType() != IResource.FILE;
		}, IResource.NONE);
		List<PathMatcher> globs = globs(project);
		if (!globs.isEmpty() && Files.isDirectory(location)) {
			try {
				Files.walkFileTree(location, new SimpleFileVisitor<>() {
					@Override
					public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
						if (dir.equals(location)) {
							return FileVisitResult.CONTINUE;
						}
						Path rel = location.relativize(dir);
						if (".git".equals(dir.getFileName().toString())) { //$NON-NLS-1$
							return FileVisitResult.SKIP_SUBTREE;
						}
						for (PathMatcher m : globs) {
							if (m.matches(rel)) {
								roots.add(new Root(rel.toString().replace(File.separatorChar, '/'), true));
								return FileVisitResult.SKIP_SUBTREE;
							}
						}
						return FileVisitResult.CONTINUE;
					}
				});
			} catch (IOException e) {
				throw new CoreException(Status.error(e.getMessage(), e));
			}
		}
		// drop roots nested in other roots, keep order stable
		roots.sort(Comparator.comparing(Root::path));
		List<Root> result = new ArrayList<>();
		for (Root r : roots) {
			if (result.stream().noneMatch(o -> o.folder() && (r.path().equals(o.path())
					|| r.path().startsWith(o.path() + '/')))) {
				result.add(r);
			}
		}
		return result;
	}

	static List<PathMatcher> globs(IProject project) {
		String value = Platform.getPreferencesService().getString(BranchstatePreferences.NODE,
				BranchstatePreferences.DERIVED_FOLDERS, "", //$NON-NLS-1$
				new IScopeContext[] { new ProjectScope(project), InstanceScope.INSTANCE });
		List<PathMatcher> result = new ArrayList<>();
		for (String glob : value.split("[,\\n\\r]")) { //$NON-NLS-1$
			String g = glob.trim();
			while (g.endsWith("/")) { //$NON-NLS-1$
				g = g.substring(0, g.length() - 1);
			}
			while (g.startsWith("/")) { //$NON-NLS-1$
				g = g.substring(1);
			}
			if (!g.isEmpty()) {
				result.add(FileSystems.getDefault().getPathMatcher("glob:" + g)); //$NON-NLS-1$
			}
		}
		return result;
	}

	/**
	 * @return the roots that hold no file tracked by Git (the index of the repository of the project); roots that
	 *         do are logged and left alone, so that a restore never writes a tracked file
	 */
	static List<Root> untracked(IProject project, Path location, List<Root> roots) {
		if (roots.isEmpty()) {
			return roots;
		}
		try {
			Optional<GitIndexes.Index> found = GitIndexes.of(location);
			if (found.isEmpty()) {
				return roots;
			}
			Path workTree = found.get().workTree();
			String projectPrefix = workTree.relativize(location.toRealPath()).toString().replace(File.separatorChar, '/');
			DirCache index = found.get().entries();
			List<Root> result = new ArrayList<>();
			for (Root r : roots) {
				String repoPath = projectPrefix.isEmpty() ? r.path() : projectPrefix + '/' + r.path();
				if (tracked(index, repoPath, r.folder())) {
					Log.warning(NLS.bind(Messages.Contributors_derivedTracked, project.getName() + '/' + r.path()));
				} else {
					result.add(r);
				}
			}
			return result;
		} catch (IOException e) {
			// without the index we cannot prove that nothing tracked is touched: touch nothing
			Log.error(e.getMessage(), e);
			return List.of();
		}
	}

	private static boolean tracked(DirCache index, String repoPath, boolean folder) {
		if (!folder) {
			return index.findEntry(repoPath) >= 0;
		}
		DirCacheEntry[] entries = index.getEntriesWithin(repoPath);
		return entries.length > 0;
	}

	private static List<Root> parse(IRestoreContext context) throws IOException {
		String text;
		try (InputStream in = context.open(ROOTS)) {
			text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		List<Root> roots = new ArrayList<>();
		for (String line : text.split("\n")) { //$NON-NLS-1$
			if (line.length() > 2 && line.charAt(1) == '\t') {
				String path = line.substring(2);
				if (path.startsWith("/") || Arrays.asList(path.split("/")).contains("..")) { //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
					throw new IOException("invalid derived root in state: " + path); //$NON-NLS-1$
				}
				roots.add(new Root(path, line.charAt(0) == 'D'));
			}
		}
		return roots;
	}

	/** Writes one derived file if its content differs (temporary file + atomic move). */
	private static void restoreFile(IRestoreContext context, String name, Path target) throws IOException {
		byte[] content;
		try (InputStream in = context.open(name)) {
			ByteArrayOutputStream out = new ByteArrayOutputStream();
			in.transferTo(out);
			content = out.toByteArray();
		}
		if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS) && Files.size(target) == content.length
				&& Arrays.equals(Files.readAllBytes(target), content)) {
			return;
		}
		Files.createDirectories(target.getParent());
		Path temp = target.resolveSibling("." + target.getFileName() + ".tmp-" //$NON-NLS-1$ //$NON-NLS-2$
				+ Long.toHexString(ThreadLocalRandom.current().nextLong()));
		try {
			try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
				channel.write(java.nio.ByteBuffer.wrap(content));
			}
			if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
				deleteTree(target);
			}
			Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
		} finally {
			Files.deleteIfExists(temp);
		}
	}

	private static void emptyRoots(Path location, List<Root> roots) {
		for (Root r : roots) {
			try {
				deleteTree(location.resolve(r.path()));
			} catch (IOException e) {
				Log.error(e.getMessage(), e);
			}
		}
	}

	static void deleteTree(Path path) throws IOException {
		if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
			return;
		}
		if (!Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
			Files.delete(path);
			return;
		}
		Files.walkFileTree(path, new SimpleFileVisitor<>() {
			@Override
			public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
				Files.delete(file);
				return FileVisitResult.CONTINUE;
			}

			@Override
			public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
				if (exc != null) {
					throw exc;
				}
				Files.delete(dir);
				return FileVisitResult.CONTINUE;
			}
		});
	}

	/** Refreshes the roots in the workspace and marks the restored ones derived. */
	private static void refresh(IProject project, List<Root> roots, List<Root> saved, SubMonitor monitor)
			throws CoreException {
		monitor.setWorkRemaining(Math.max(1, roots.size()));
		for (Root r : roots) {
			IResource resource = r.folder() ? project.getFolder(r.path()) : project.getFile(r.path());
			IContainer parent = resource.getParent();
			while (parent.getType() != IResource.PROJECT && !parent.exists()) {
				resource = parent;
				parent = parent.getParent();
			}
			resource.refreshLocal(IResource.DEPTH_INFINITE, null);
			IResource restored = r.folder() ? project.getFolder(r.path()) : project.getFile(r.path());
			if (saved.contains(r) && restored.exists()) {
				restored.setDerived(true, null);
			}
			monitor.worked(1);
		}
	}

	/**
	 * @param named the folders contributors name as derived ({@link ContributorRegistry#derivedFolders})
	 * @return whether a project-relative path is derived data: inside a resource marked derived, inside a folder
	 *         that a contributor names or that the {@link BranchstatePreferences#DERIVED_FOLDERS} globs name
	 */
	public static boolean isDerived(IProject project, IPath path, List<IPath> named) {
		if (named.stream().anyMatch(folder -> folder.isPrefixOf(path))) {
			return true;
		}
		List<PathMatcher> globs = globs(project);
		for (int n = 1; n <= path.segmentCount(); n++) {
			IResource member = project.findMember(path.uptoSegment(n));
			if (member != null && member.isDerived()) {
				return true;
			}
			if (n == path.segmentCount()) {
				break;
			}
			Path prefix = Path.of(path.uptoSegment(n).toOSString());
			for (PathMatcher m : globs) {
				if (m.matches(prefix)) {
					return true;
				}
			}
		}
		return false;
	}
}
