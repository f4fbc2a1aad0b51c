package dev.branchstate.core.tests;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import org.eclipse.core.resources.IFolder;
import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.preferences.IEclipsePreferences;
import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.revwalk.RevCommit;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.util.tracker.ServiceTracker;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.core.IStateListener;
import dev.branchstate.core.IStateService;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.internal.service.StateService;

/**
 * Test fixtures: a real Git repository in a temporary folder (made with JGit) imported as a workspace project, the
 * state service with its store in a temporary folder, automatic switching off, and helpers to compare trees.
 */
public final class Fixtures implements AutoCloseable {

	private static ServiceTracker<IStateService, IStateService> tracker;

	final Path root;
	final Path workTree;
	final Git git;
	final IProject project;
	final StateService service;
	final Path storeDir;
	final List<StateEvent> events = new CopyOnWriteArrayList<>();
	private final IStateListener listener = events::add;
	private final List<AutoCloseable> closeables = new ArrayList<>();

	Fixtures(Path root, String name) throws Exception {
		this.root = root;
		setPreference(BranchstatePreferences.AUTO_SWITCH, "false");
		this.workTree = Files.createDirectories(root.resolve(name));
		this.git = Git.init().setDirectory(workTree.toFile()).setInitialBranch("main").call();
		write(".gitignore", "bin/\n");
		write("src/A.java", "class A {}\n");
		write("src/B.java", "class B {}\n");
		write("README.md", "demo\n");
		this.project = createProject(name, workTree);
		commit("initial"); // with the .project file, as a real repository would have it
		this.service = service();
		this.storeDir = Files.createDirectories(root.resolve("store"));
		service.setStoreLocation(storeDir);
		service.addStateListener(listener);
	}

	static StateService service() throws InterruptedException {
		synchronized (Fixtures.class) {
			if (tracker == null) {
				BundleContext context = FrameworkUtil.getBundle(Fixtures.class).getBundleContext();
				tracker = new ServiceTracker<>(context, IStateService.class, null);
				tracker.open();
			}
		}
		IStateService s = tracker.waitForService(Duration.ofSeconds(30).toMillis());
		if (s == null) {
			throw new IllegalStateException("no IStateService");
		}
		return (StateService) s;
	}

	static IWorkspace workspace() {
		return ResourcesPlugin.getWorkspace();
	}

	static IProject createProject(String name, Path location) throws CoreException {
		IProject project = workspace().getRoot().getProject(name);
		IProjectDescription description = workspace().newProjectDescription(name);
		description.setLocation(IPath.fromFile(location.toFile()));
		project.create(description, null);
		project.open(null);
		return project;
	}

	/** Sets a preference of Branchstate's instance scope; {@code null} removes it. */
	public static void setPreference(String key, String value) throws Exception {
		IEclipsePreferences node = InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE);
		if (value == null) {
			node.remove(key);
		} else {
			node.put(key, value);
		}
		node.flush();
	}

	File gitDir() {
		return git.getRepository().getDirectory();
	}

	void register(AutoCloseable closeable) {
		closeables.add(closeable);
	}

	Path write(String path, String content) throws IOException {
		return write(path, content.getBytes(StandardCharsets.UTF_8));
	}

	Path write(String path, byte[] content) throws IOException {
		Path file = workTree.resolve(path);
		Files.createDirectories(file.getParent());
		Files.write(file, content);
		return file;
	}

	RevCommit commit(String message) throws Exception {
		git.add().addFilepattern(".").call();
		git.add().addFilepattern(".").setUpdate(true).call();
		return git.commit().setMessage(message).setAuthor("t", "t@example.org").setCommitter("t", "t@example.org")
				.call();
	}

	/** Writes derived output into bin/ (marked derived in the workspace) and returns it. */
	IFolder output(Map<String, byte[]> files) throws Exception {
		for (Map.Entry<String, byte[]> e : files.entrySet()) {
			write("bin/" + e.getKey(), e.getValue());
		}
		IFolder bin = project.getFolder("bin");
		bin.refreshLocal(IResource.DEPTH_INFINITE, null);
		bin.setDerived(true, null);
		return bin;
	}

	IMarker problem(String path, String message, int line) throws CoreException {
		IResource resource = project.findMember(path);
		return resource.createMarker(IMarker.PROBLEM, Map.of(IMarker.MESSAGE, message, IMarker.LINE_NUMBER,
				Integer.valueOf(line), IMarker.SEVERITY, Integer.valueOf(IMarker.SEVERITY_ERROR)));
	}

	/** @return path|type|attributes of every marker of type problem (not subtypes: core adds its own), sorted */
	List<String> problems() throws CoreException {
		List<String> result = new ArrayList<>();
		for (IMarker m : project.findMarkers(IMarker.PROBLEM, false, IResource.DEPTH_INFINITE)) {
			result.add(m.getResource().getProjectRelativePath() + "|" + m.getType() + "|" + new TreeMap<>(m.getAttributes()));
		}
		result.sort(null);
		return result;
	}

	static byte[] random(int size, long seed) {
		byte[] b = new byte[size];
		new Random(seed).nextBytes(b);
		return b;
	}

	/** @return path → SHA-256 of every file under the work tree, .git excluded */
	static Map<String, String> hashes(Path tree) throws IOException {
		Map<String, String> result = new TreeMap<>();
		Files.walkFileTree(tree, new SimpleFileVisitor<>() {
			@Override
			public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
				return dir.getFileName().toString().equals(".git") ? FileVisitResult.SKIP_SUBTREE
						: FileVisitResult.CONTINUE;
			}

			@Override
			public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
				try {
					result.put(tree.relativize(file).toString(),
							HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file))));
				} catch (NoSuchAlgorithmException e) {
					throw new IOException(e);
				}
				return FileVisitResult.CONTINUE;
			}
		});
		return result;
	}

	/** @return the files under a folder, relative, sorted */
	static List<String> files(Path dir) throws IOException {
		if (!Files.isDirectory(dir)) {
			return List.of();
		}
		try (Stream<Path> s = Files.walk(dir)) {
			return s.filter(Files::isRegularFile).map(p -> dir.relativize(p).toString()).sorted().toList();
		}
	}

	List<StateEvent> events(StateEvent.Kind kind) {
		return events.stream().filter(e -> e.kind() == kind).toList();
	}

	@Override
	public void close() throws Exception {
		for (AutoCloseable c : closeables) {
			c.close();
		}
		service.removeStateListener(listener);
		service.setStoreLocation(null);
		if (project.exists()) {
			project.delete(IResource.NEVER_DELETE_PROJECT_CONTENT | IResource.FORCE, null);
		}
		git.close();
		setPreference(BranchstatePreferences.AUTO_SWITCH, null);
		setPreference(BranchstatePreferences.DISK_BUDGET_MB, null);
	}
}
