package dev.branchstate.core.tests.switching;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.eclipse.core.resources.ICommand;
import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IFolder;
import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * A Git repository made by a test: commits of files given as path → content (a {@code null} content deletes), and
 * the Eclipse projects on its work tree with the {@link RecordingBuilder}.
 */
final class GitFixture implements AutoCloseable {

	private static final AtomicInteger PROJECTS = new AtomicInteger();

	final Path workTree;
	final Git git;

	GitFixture(Path workTree, Git git) {
		this.workTree = workTree;
		this.git = git;
	}

	/** A repository whose first commit on {@code main} holds the files and a .gitignore of bin/ and .project. */
	static GitFixture create(Path dir, Map<String, String> files) throws Exception {
		Git git = Git.init().setDirectory(dir.toFile()).setInitialBranch("main").call();
		GitFixture fixture = new GitFixture(dir, git);
		Map<String, String> first = new LinkedHashMap<>(files);
		first.put(".gitignore", "bin/\n.project\n.settings/\n");
		fixture.commit("A", first);
		return fixture;
	}

	File gitDir() {
		return git.getRepository().getDirectory();
	}

	/** Writes, deletes and commits files on the current branch; @return the commit id */
	String commit(String message, Map<String, String> files) throws Exception {
		for (Map.Entry<String, String> file : files.entrySet()) {
			Path path = workTree.resolve(file.getKey());
			if (file.getValue() == null) {
				Files.deleteIfExists(path);
			} else {
				Files.createDirectories(path.getParent());
				Files.writeString(path, file.getValue());
			}
		}
		git.add().addFilepattern(".").call();
		git.add().setUpdate(true).addFilepattern(".").call();
		return git.commit().setMessage(message).setAuthor(ident()).setCommitter(ident()).call().name();
	}

	/** Creates {@code branch} at HEAD, checks it out, commits the files there; @return the commit id */
	String branch(String branch, Map<String, String> files) throws Exception {
		git.branchCreate().setName(branch).call();
		git.checkout().setName(branch).call();
		return commit(branch, files);
	}

	/**
	 * Adds a commit on {@code branch} without checking it out (as a push from elsewhere would): the tree of the
	 * branch with the files changed. @return the commit id
	 */
	String commitOnBranchElsewhere(String branch, Map<String, String> files) throws IOException {
		Repository repository = git.getRepository();
		ObjectId parentId = repository.resolve(Constants.R_HEADS + branch);
		try (ObjectInserter inserter = repository.newObjectInserter(); RevWalk walk = new RevWalk(repository)) {
			RevCommit parent = walk.parseCommit(parentId);
			Map<String, ObjectId> entries = new TreeMap<>();
			try (TreeWalk tree = new TreeWalk(repository)) {
				tree.addTree(parent.getTree());
				tree.setRecursive(true);
				while (tree.next()) {
					entries.put(tree.getPathString(), tree.getObjectId(0));
				}
			}
			for (Map.Entry<String, String> file : files.entrySet()) {
				if (file.getValue() == null) {
					entries.remove(file.getKey());
				} else {
					entries.put(file.getKey(), inserter.insert(Constants.OBJ_BLOB,
							file.getValue().getBytes(StandardCharsets.UTF_8)));
				}
			}
			DirCache index = DirCache.newInCore();
			DirCacheBuilder builder = index.builder();
			entries.forEach((path, id) -> {
				DirCacheEntry entry = new DirCacheEntry(path);
				entry.setFileMode(FileMode.REGULAR_FILE);
				entry.setObjectId(id);
				builder.add(entry);
			});
			builder.finish();
			CommitBuilder commit = new CommitBuilder();
			commit.setTreeId(index.writeTree(inserter));
			commit.setParentId(parentId);
			commit.setAuthor(ident());
			commit.setCommitter(ident());
			commit.setMessage("moved elsewhere");
			ObjectId id = inserter.insert(commit);
			inserter.flush();
			RefUpdate update = repository.updateRef(Constants.R_HEADS + branch);
			update.setExpectedOldObjectId(parentId);
			update.setNewObjectId(id);
			if (update.update() != RefUpdate.Result.FAST_FORWARD) {
				throw new IOException("cannot move " + branch + ": " + update.getResult());
			}
			return id.name();
		}
	}

	/** @return the repository-relative paths that differ between two commits */
	List<String> diff(String from, String to) throws IOException {
		Repository repository = git.getRepository();
		List<String> paths = new ArrayList<>();
		try (RevWalk walk = new RevWalk(repository); TreeWalk tree = new TreeWalk(repository)) {
			tree.addTree(walk.parseCommit(ObjectId.fromString(from)).getTree());
			tree.addTree(walk.parseCommit(ObjectId.fromString(to)).getTree());
			tree.setRecursive(true);
			tree.setFilter(org.eclipse.jgit.treewalk.filter.TreeFilter.ANY_DIFF);
			while (tree.next()) {
				paths.add(tree.getPathString());
			}
		}
		return paths;
	}

	/** Runs the git command line in the work tree, as a user in a terminal would. */
	void cli(String... args) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>();
		command.add("git");
		command.addAll(List.of(args));
		Process process = new ProcessBuilder(command).directory(workTree.toFile()).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
			throw new IOException("git " + String.join(" ", args) + " failed: " + output);
		}
	}

	/** Creates and opens a project on {@code folder} of the work tree with the recording builder. */
	IProject project(String folder) throws CoreException {
		IWorkspace workspace = ResourcesPlugin.getWorkspace();
		String name = "switching" + PROJECTS.incrementAndGet();
		IProject project = workspace.getRoot().getProject(name);
		IProjectDescription description = workspace.newProjectDescription(name);
		description.setLocation(IPath.fromPath(folder.isEmpty() ? workTree : workTree.resolve(folder)));
		ICommand command = description.newCommand();
		command.setBuilderName(RecordingBuilder.ID);
		description.setBuildSpec(new ICommand[] { command });
		project.create(description, null);
		project.open(null);
		return project;
	}

	/** @return project-relative path → bytes of every file under bin/, read from disk */
	static Map<String, byte[]> derived(IProject project) throws IOException {
		Map<String, byte[]> files = new TreeMap<>();
		Path bin = project.getLocation().toPath().resolve("bin");
		if (Files.isDirectory(bin)) {
			try (var walk = Files.walk(bin)) {
				for (Path file : walk.filter(Files::isRegularFile).toList()) {
					files.put(project.getLocation().toPath().relativize(file).toString(), Files.readAllBytes(file));
				}
			}
		}
		return files;
	}

	/** @return one line per problem marker of the test type: path, then the sorted attributes */
	static TreeSet<String> markers(IProject project) throws CoreException {
		TreeSet<String> markers = new TreeSet<>();
		for (IMarker marker : project.findMarkers(RecordingBuilder.MARKER, true, IResource.DEPTH_INFINITE)) {
			markers.add(marker.getResource().getProjectRelativePath() + " " + new TreeMap<>(marker.getAttributes()));
		}
		return markers;
	}

	static void write(IFile file, String content) throws CoreException {
		file.setContents(new ByteArrayInputStream(content.getBytes(StandardCharsets.UTF_8)), IResource.FORCE, null);
	}

	static boolean isDerivedFolder(IFolder folder) {
		return folder.exists() && folder.isDerived();
	}

	private static PersonIdent ident() {
		return new PersonIdent("Branchstate Test", "test@branchstate.dev");
	}

	@Override
	public void close() {
		git.close();
	}
}
