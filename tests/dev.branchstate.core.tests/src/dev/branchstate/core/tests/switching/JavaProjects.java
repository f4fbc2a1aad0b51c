package dev.branchstate.core.tests.switching;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.IncrementalProjectBuilder;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.jgit.api.Git;

import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.app.BranchstateApplication;

/**
 * A Git repository of several Java projects in sub-folders that read each other through project entries on their
 * classpaths ({@code <classpathentry kind="src" path="/core"/>}), as a team's multi-project repository is. Each
 * project has the source folder {@code src}, the running JDK as a library, its own libraries and the output folder
 * {@code bin} (git-ignored). Project names get a prefix unique to the fixture, as the tests share one workspace.
 * Offers a clean build of the working tree to compare a switch's result with, project by project.
 */
final class JavaProjects implements AutoCloseable {

	private static final AtomicInteger NAMES = new AtomicInteger();

	final Path workTree;
	final Git git;
	/** Prefix of every project name of this repository. */
	final String prefix;
	private final GitFixture fixture;

	private JavaProjects(Path workTree, Git git, String prefix) {
		this.workTree = workTree;
		this.git = git;
		this.prefix = prefix;
		this.fixture = new GitFixture(workTree, git);
	}

	/**
	 * A repository whose first commit on {@code main} holds the files made by {@code files} (given this fixture's
	 * prefix, see {@link #project}).
	 */
	static JavaProjects create(Path dir, java.util.function.Function<JavaProjects, Map<String, String>> files)
			throws Exception {
		Git git = Git.init().setDirectory(dir.toFile()).setInitialBranch("main").call();
		JavaProjects repo = new JavaProjects(dir, git, "refs" + NAMES.incrementAndGet() + "-");
		Map<String, String> all = new LinkedHashMap<>();
		all.put(".gitignore", "bin/\n");
		all.putAll(files.apply(repo));
		repo.commit("main", all);
		return repo;
	}

	/** @return the workspace name of the project in folder {@code folder} */
	String name(String folder) {
		return prefix + folder;
	}

	/**
	 * @param folder    the project's folder at the work tree's root (its name without the prefix)
	 * @param reads     folders of the projects it reads (project entries on its classpath)
	 * @param libraries project-relative paths of jars on its classpath (missing ones make a build-path error)
	 * @return {@code .project} and {@code .classpath} of a Java project
	 */
	Map<String, String> project(String folder, List<String> reads, List<String> libraries) {
		String jrt = Path.of(System.getProperty("java.home"), "lib", "jrt-fs.jar").toString();
		StringBuilder classpath = new StringBuilder("""
				<?xml version="1.0" encoding="UTF-8"?>
				<classpath>
					<classpathentry kind="src" path="src"/>
				""");
		for (String read : reads) {
			classpath.append("\t<classpathentry combineaccessrules=\"false\" kind=\"src\" path=\"/")
					.append(name(read)).append("\"/>\n");
		}
		classpath.append("\t<classpathentry kind=\"lib\" path=\"").append(jrt).append("\"/>\n");
		for (String library : libraries) {
			classpath.append("\t<classpathentry kind=\"lib\" path=\"").append(library).append("\"/>\n");
		}
		classpath.append("\t<classpathentry kind=\"output\" path=\"bin\"/>\n</classpath>\n");
		return Map.of(folder + "/.project", JavaRepository.projectFiles(name(folder)).get(".project"), folder + "/.classpath",
				classpath.toString());
	}

	/** Writes (a {@code null} content deletes) and commits files on the current branch; @return the commit id */
	String commit(String message, Map<String, String> files) throws Exception {
		return fixture.commit(message, files);
	}

	/** Creates {@code branch} at HEAD, checks it out and commits the files there; @return the commit id */
	String branch(String branch, Map<String, String> files) throws Exception {
		return fixture.branch(branch, files);
	}

	java.io.File gitDir() {
		return git.getRepository().getDirectory();
	}

	/** Runs a command of the headless application as a user types it; @return its output (exit code checked) */
	static String command(int exit, String... arguments) {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		ByteArrayOutputStream err = new ByteArrayOutputStream();
		Object code = BranchstateApplication.run(List.of(arguments), new PrintStream(out, true, StandardCharsets.UTF_8),
				new PrintStream(err, true, StandardCharsets.UTF_8));
		String output = out.toString(StandardCharsets.UTF_8);
		org.assertj.core.api.Assertions.assertThat(code).as(output + err.toString(StandardCharsets.UTF_8))
				.isEqualTo(Integer.valueOf(exit));
		return output;
	}

	/** The headless {@code import} command on the work tree; @return the repository's projects, by folder */
	Map<String, IProject> importAll() {
		command(0, "import", workTree.toString());
		return projects();
	}

	/** @return the workspace projects of this repository, by folder */
	Map<String, IProject> projects() {
		Map<String, IProject> result = new TreeMap<>();
		for (IProject project : ResourcesPlugin.getWorkspace().getRoot().getProjects()) {
			if (project.getName().startsWith(prefix)) {
				result.put(project.getName().substring(prefix.length()), project);
			}
		}
		return result;
	}

	/** The headless {@code switch} command with Branchstate on; @return its output */
	String switchTo(String branch, int exit) {
		return command(exit, "switch", workTree.toString(), "--with-branchstate", branch);
	}

	/** @return what the builds of the repository's projects left, by folder */
	Map<String, JavaRepository.Build> builds() throws IOException, CoreException {
		Map<String, JavaRepository.Build> result = new TreeMap<>();
		for (Map.Entry<String, IProject> e : projects().entrySet()) {
			result.put(e.getKey(), buildOf(e.getValue(), UnaryOperator.identity()));
		}
		return result;
	}

	/**
	 * The reference: a copy of the working tree's projects (without {@code .git} and {@code bin}) imported under
	 * other names (their project entries renamed alike) and built in full by JDT. @return what each left, by folder,
	 * the markers' messages naming the projects as the repository's do
	 */
	Map<String, JavaRepository.Build> cleanBuild(Path scratch) throws Exception {
		String clean = "clean" + NAMES.incrementAndGet() + "-";
		Path copy = scratch.resolve(clean);
		List<String> folders = new ArrayList<>(projects().keySet());
		IWorkspace workspace = ResourcesPlugin.getWorkspace();
		List<IProject> created = new ArrayList<>();
		try {
			for (String folder : folders) {
				copyProject(workTree.resolve(folder), copy.resolve(folder), clean);
			}
			workspace.run(monitor -> {
				for (String folder : folders) {
					IProjectDescription description = workspace
							.loadProjectDescription(IPath.fromPath(copy.resolve(folder).resolve(".project")));
					IProject project = workspace.getRoot().getProject(description.getName());
					project.create(description, null);
					project.open(null);
					created.add(project);
				}
			}, null);
			workspace.build(created.stream().map(p -> {
				try {
					return p.getActiveBuildConfig();
				} catch (CoreException e) {
					throw new IllegalStateException(e);
				}
			}).toArray(org.eclipse.core.resources.IBuildConfiguration[]::new), IncrementalProjectBuilder.FULL_BUILD,
					true, null);
			Map<String, JavaRepository.Build> result = new TreeMap<>();
			for (int i = 0; i < folders.size(); i++) {
				result.put(folders.get(i), buildOf(created.get(i), text -> text.replace(clean, prefix)));
			}
			return result;
		} finally {
			for (IProject project : created) {
				project.delete(true, true, null);
			}
			// JDT touches the projects that share a library with the copies (the JDK's): their builders run again
			// (compiling nothing) before the test goes on, as they would before a user's next switch
			SwitchHarness.awaitQuiet();
			workspace.build(IncrementalProjectBuilder.INCREMENTAL_BUILD, null);
			SwitchHarness.awaitQuiet();
		}
	}

	/** Copies a project's folder without its output, the names of this repository's projects given {@code clean}. */
	private void copyProject(Path from, Path to, String clean) throws IOException {
		try (var walk = Files.walk(from)) {
			for (Path source : walk.toList()) {
				Path relative = from.relativize(source);
				if (!relative.toString().isEmpty() && relative.getName(0).toString().equals("bin")) {
					continue;
				}
				Path target = to.resolve(relative.toString());
				if (Files.isDirectory(source)) {
					Files.createDirectories(target);
				} else if (relative.toString().equals(".project") || relative.toString().equals(".classpath")) {
					Files.writeString(target, Files.readString(source).replace(prefix, clean));
				} else {
					Files.copy(source, target);
				}
			}
		}
	}

	/**
	 * @return the project's output folders and JDT's markers of every kind (compiler problems, build path, cycles),
	 *         their messages passed through {@code rename}
	 */
	private static JavaRepository.Build buildOf(IProject project, UnaryOperator<String> rename)
			throws IOException, CoreException {
		JavaRepository.Build build = JavaRepository.Build.of(project);
		TreeSet<String> markers = new TreeSet<>();
		for (IMarker marker : project.findMarkers(IMarker.PROBLEM, true, IResource.DEPTH_INFINITE)) {
			if (!marker.getType().startsWith("org.eclipse.jdt")) {
				continue;
			}
			String path = marker.getResource().getType() == IResource.PROJECT ? "."
					: marker.getResource().getProjectRelativePath().toString();
			markers.add(path + ":" + marker.getAttribute(IMarker.LINE_NUMBER, -1) + " " + marker.getType() + " "
					+ marker.getAttribute(IMarker.SEVERITY, -1) + " "
					+ rename.apply(marker.getAttribute(IMarker.MESSAGE, "")));
		}
		return new JavaRepository.Build(build.output(), markers);
	}

	/** After a test: the repository's stored states and projects (their files stay) deleted, the repository closed. */
	void discard(SwitchHarness harness) throws Exception {
		SwitchHarness.awaitQuiet();
		for (StateInfo state : harness.service.states(gitDir())) {
			harness.service.delete(state);
		}
		for (IProject project : projects().values()) {
			project.delete(false, true, null);
		}
		close();
	}

	@Override
	public void close() {
		git.close();
	}
}
