package dev.branchstate.core.tests.switching;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;

import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.IncrementalProjectBuilder;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.jdt.core.IClasspathEntry;
import org.eclipse.jdt.core.IJavaModelMarker;
import org.eclipse.jdt.core.IJavaProject;
import org.eclipse.jdt.core.JavaCore;
import org.eclipse.jgit.api.Git;

import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.app.SwitchCommand;

/**
 * A Git repository holding one Java project at its root, as a user's would: {@code .project} with the Java nature
 * and builder, {@code .classpath} with the source folder {@code src}, the running JDK as a library and the output
 * folder {@code bin} (git-ignored). Offers a clean build of the working tree to compare a switch's result with.
 */
final class JavaRepository implements AutoCloseable {

	private static final AtomicInteger NAMES = new AtomicInteger();

	final Path workTree;
	final Git git;
	final String projectName;
	/** Commits, branches and the command line, as for the other switching tests. */
	private final GitFixture fixture;

	private JavaRepository(Path workTree, Git git, String projectName) {
		this.workTree = workTree;
		this.git = git;
		this.projectName = projectName;
		this.fixture = new GitFixture(workTree, git);
	}

	/** A repository whose first commit on {@code main} holds the Java project and the sources (path → content). */
	static JavaRepository create(Path dir, Map<String, String> sources) throws Exception {
		return create(dir, sources, List.of());
	}

	/** The same, with more builders after JDT's in the project's build spec. */
	static JavaRepository create(Path dir, Map<String, String> sources, List<String> moreBuilders) throws Exception {
		Git git = Git.init().setDirectory(dir.toFile()).setInitialBranch("main").call();
		String name = "java" + NAMES.incrementAndGet();
		JavaRepository repo = new JavaRepository(dir, git, name);
		Map<String, String> files = new LinkedHashMap<>(projectFiles(name, moreBuilders));
		files.put(".gitignore", "bin/\n");
		files.putAll(sources);
		repo.commit("main", files);
		return repo;
	}

	/**
	 * A second developer's clone of this repository in {@code dir}, on {@code branch}: the same project (same name),
	 * another work tree, no output.
	 */
	JavaRepository cloneInto(Path dir, String branch) throws Exception {
		Git clone = Git.cloneRepository().setURI(workTree.toUri().toString()).setDirectory(dir.toFile())
				.setBranch(branch).call();
		for (String b : List.of("main", "feat")) {
			if (clone.getRepository().findRef("refs/heads/" + b) == null
					&& clone.getRepository().findRef("refs/remotes/origin/" + b) != null) {
				clone.branchCreate().setName(b).setStartPoint("origin/" + b).call();
			}
		}
		return new JavaRepository(dir, clone, projectName);
	}

	static Map<String, String> projectFiles(String name) {
		return projectFiles(name, List.of());
	}

	private static Map<String, String> projectFiles(String name, List<String> moreBuilders) {
		StringBuilder more = new StringBuilder();
		for (String builder : moreBuilders) {
			more.append("\t\t<buildCommand><name>").append(builder).append("</name><arguments></arguments></buildCommand>\n");
		}
		String jrt = Path.of(System.getProperty("java.home"), "lib", "jrt-fs.jar").toString();
		return Map.of(".project", """
				<?xml version="1.0" encoding="UTF-8"?>
				<projectDescription>
					<name>%s</name>
					<comment></comment>
					<projects></projects>
					<buildSpec>
						<buildCommand><name>org.eclipse.jdt.core.javabuilder</name><arguments></arguments></buildCommand>
				%s	</buildSpec>
					<natures><nature>org.eclipse.jdt.core.javanature</nature></natures>
				</projectDescription>
				""".formatted(name, more), ".classpath", """
				<?xml version="1.0" encoding="UTF-8"?>
				<classpath>
					<classpathentry kind="src" path="src"/>
					<classpathentry kind="lib" path="%s"/>
					<classpathentry kind="output" path="bin"/>
				</classpath>
				""".formatted(jrt));
	}

	File gitDir() {
		return git.getRepository().getDirectory();
	}

	/** Writes (a {@code null} content deletes) and commits files on the current branch; @return the commit id */
	String commit(String message, Map<String, String> files) throws Exception {
		return fixture.commit(message, files);
	}

	/** Creates {@code branch} at HEAD, checks it out and commits the files there; @return the commit id */
	String branch(String branch, Map<String, String> files) throws Exception {
		return fixture.branch(branch, files);
	}

	/** Imports the project of the work tree into the workspace (as File › Import › Existing Projects does). */
	IProject importProject() throws CoreException {
		IWorkspace workspace = ResourcesPlugin.getWorkspace();
		IProjectDescription description = workspace
				.loadProjectDescription(IPath.fromPath(workTree.resolve(".project")));
		IProject project = workspace.getRoot().getProject(description.getName());
		project.create(description, null);
		project.open(null);
		return project;
	}

	/**
	 * After a test: the repository's stored states and the imported project (if any; its files stay) deleted, the
	 * repository closed.
	 */
	void discard(SwitchHarness harness, IProject project) throws Exception {
		SwitchHarness.awaitQuiet();
		if (project != null && project.exists()) {
			for (StateInfo state : harness.service.states(gitDir())) {
				harness.service.delete(state);
			}
			project.delete(false, true, null);
		}
		close();
	}

	/**
	 * The headless {@code switch} command with Branchstate on (checkout with JGit, the switch, the build, the
	 * background jobs). @param exit the exit code expected: 1 when the switch reports a failure (a restore refused,
	 * say) @return its output
	 */
	String switchTo(String branch, int exit) throws Exception {
		java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
		java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
		Integer code = SwitchCommand.run(List.of(workTree.toString(), SwitchCommand.WITH_BRANCHSTATE, branch),
				new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8),
				new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
		String output = out.toString(java.nio.charset.StandardCharsets.UTF_8);
		org.assertj.core.api.Assertions.assertThat(code)
				.as(output + err.toString(java.nio.charset.StandardCharsets.UTF_8)).isEqualTo(exit);
		return output;
	}

	/** Runs the git command line in the work tree, as a user in a terminal would. */
	void cli(String... args) throws IOException, InterruptedException {
		fixture.cli(args);
	}

	/**
	 * The reference: a copy of the working tree (without {@code .git} and {@code bin}) imported as a second project
	 * under another name and built in full by JDT. @return its output folder and Java problem markers
	 */
	Build cleanBuild(Path scratch) throws Exception {
		String name = projectName + "-clean" + NAMES.incrementAndGet();
		Path copy = copyOfWorkTree(scratch, name);
		IProject project = null;
		try {
			IWorkspace workspace = ResourcesPlugin.getWorkspace();
			IProjectDescription description = workspace.loadProjectDescription(IPath.fromPath(copy.resolve(".project")));
			project = workspace.getRoot().getProject(name);
			project.create(description, null);
			project.open(null);
			project.build(IncrementalProjectBuilder.FULL_BUILD, null);
			return Build.of(project);
		} finally {
			if (project != null) {
				project.delete(true, true, null);
			}
		}
	}

	/**
	 * A copy of the working tree without {@code .git} and the output folders ({@code bin}, {@code bin-gen}), its
	 * {@code .project} naming another project. @return the copy's folder, {@code scratch/name}
	 */
	Path copyOfWorkTree(Path scratch, String name) throws IOException {
		Path copy = scratch.resolve(name);
		try (var walk = Files.walk(workTree)) {
			for (Path source : walk.toList()) {
				Path relative = workTree.relativize(source);
				if (relative.toString().isEmpty() || relative.startsWith(".git")
						|| relative.getName(0).toString().startsWith("bin")) {
					continue;
				}
				Path target = copy.resolve(relative.toString());
				if (Files.isDirectory(source)) {
					Files.createDirectories(target);
				} else {
					Files.createDirectories(target.getParent());
					Files.copy(source, target);
				}
			}
		}
		Files.writeString(copy.resolve(".project"), projectFiles(name).get(".project"));
		return copy;
	}

	/**
	 * What a build left: the files of the output folders of the project's classpath (project-relative path → bytes)
	 * and the Java problem markers, one line each.
	 */
	record Build(Map<String, byte[]> output, TreeSet<String> markers) {

		static Build of(IProject project) throws IOException, CoreException {
			Map<String, byte[]> output = new TreeMap<>();
			Path location = project.getLocation().toPath();
			for (String folder : outputFolders(project)) {
				Path bin = location.resolve(folder);
				if (Files.isDirectory(bin)) {
					try (var walk = Files.walk(bin)) {
						for (Path file : walk.filter(Files::isRegularFile).toList()) {
							output.put(location.relativize(file).toString(), Files.readAllBytes(file));
						}
					}
				}
			}
			TreeSet<String> markers = new TreeSet<>();
			for (IMarker marker : project.findMarkers(IJavaModelMarker.JAVA_MODEL_PROBLEM_MARKER, true,
					IResource.DEPTH_INFINITE)) {
				markers.add(marker.getResource().getProjectRelativePath() + ":" + marker.getAttribute(IMarker.LINE_NUMBER, -1)
						+ " " + marker.getAttribute(IMarker.SEVERITY, -1) + " id=" + marker.getAttribute("id", -1) + " "
						+ marker.getAttribute(IMarker.MESSAGE, ""));
			}
			return new Build(output, markers);
		}

		/** @return the project-relative output folders of the project's classpath (JDT's public API) */
		private static Set<String> outputFolders(IProject project) throws CoreException {
			IJavaProject javaProject = JavaCore.create(project);
			Set<String> folders = new TreeSet<>();
			folders.add(javaProject.getOutputLocation().removeFirstSegments(1).toString());
			for (IClasspathEntry entry : javaProject.getRawClasspath()) {
				if (entry.getOutputLocation() != null) {
					folders.add(entry.getOutputLocation().removeFirstSegments(1).toString());
				}
			}
			return folders;
		}

		/** @return the differences from {@code expected}, one line each; empty when equal byte for byte */
		List<String> differencesFrom(Build expected) {
			List<String> differences = new ArrayList<>();
			for (String path : expected.output.keySet()) {
				if (!output.containsKey(path)) {
					differences.add("missing " + path);
				} else if (!java.util.Arrays.equals(output.get(path), expected.output.get(path))) {
					differences.add("different " + path);
				}
			}
			for (String path : output.keySet()) {
				if (!expected.output.containsKey(path)) {
					differences.add("extra " + path);
				}
			}
			for (String marker : expected.markers) {
				if (!markers.contains(marker)) {
					differences.add("missing marker " + marker);
				}
			}
			for (String marker : markers) {
				if (!expected.markers.contains(marker)) {
					differences.add("extra marker " + marker);
				}
			}
			return differences;
		}
	}

	@Override
	public void close() {
		git.close();
	}
}
