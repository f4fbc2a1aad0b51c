package dev.branchstate.core.tests.switching;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.IncrementalProjectBuilder;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.IPath;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.core.StateEvent;

/**
 * A state is restored only where its projects are built against the same dependencies as when it was saved: a Java
 * project compiling against a jar outside the workspace (as "Plug-in Dependencies" resolve to the target platform's
 * jars, or a JDK) whose content changed since is left to its builders, with the reason told, and the switch ends equal
 * to a clean build against the new jar. A state built against the jar as it is now is restored.
 */
class BuiltAgainstSwitchTest {

	@TempDir
	Path temp;

	private SwitchHarness harness;
	private JavaRepository repo;
	private IProject project;
	private Path jar;

	@BeforeEach
	void setUp() throws Exception {
		harness = new SwitchHarness();
		jar = temp.resolve("libs/lib.jar");
		writeLibrary("int", "1");
		String jrt = Path.of(System.getProperty("java.home"), "lib", "jrt-fs.jar").toString();
		Map<String, String> files = new HashMap<>();
		files.put(".classpath", classpath(jrt, jar));
		files.put("src/p/Uses.java", "package p;\npublic class Uses {\n\tprivate int unused;\n\tint v() { return lib.L.v(); }\n}\n");
		files.put("src/p/Other.java", "package p;\npublic class Other {\n}\n");
		repo = JavaRepository.create(temp.resolve("repo"), files);
		repo.branch("feat", Map.of("src/p/Feat.java", "package p;\npublic class Feat {\n\tUses uses;\n}\n"));
		repo.git.checkout().setName("main").call();
	}

	@AfterEach
	void tearDown() throws Exception {
		repo.discard(harness, project);
		harness.autoBuild(true);
		harness.close();
	}

	@Test
	void aStateBuiltAgainstAnotherVersionOfALibraryIsNotRestored() throws Exception {
		harness.autoBuild(true);
		project = repo.importProject();
		harness.manager().track();
		SwitchHarness.awaitQuiet();
		repo.switchTo("feat", 0); // saves main, built against lib 1
		assertEqualToCleanBuild("feat");

		// lib 2 at the same path (Uses no longer compiles), feat built against it; main's state was built against lib 1
		updateLibrary("long", "2");
		String toMain = repo.switchTo("main", 0);
		assertThat(toMain).as("the state of main is not restored").contains("restored_files=0")
				.contains("was built against other dependencies than it is now");
		assertEqualToCleanBuild("main");
		assertThat(JavaRepository.Build.of(project).markers()).as("Uses against lib 2")
				.anyMatch(m -> m.startsWith("src/p/Uses.java:4 2 "));

		// lib 1 back, main built against it; feat's state was built against lib 2
		updateLibrary("int", "1");
		String toFeat = repo.switchTo("feat", 0);
		assertThat(toFeat).as("the state of feat is not restored").contains("restored_files=0")
				.contains("was built against other dependencies than it is now");
		assertEqualToCleanBuild("feat");

		// main's state, saved when it was left, was built against lib 1, as the project is now
		String again = repo.switchTo("main", 0);
		assertThat(again).as("the state of main is restored").containsPattern("restored_files=[1-9]");
		assertEqualToCleanBuild("main");
	}

	/**
	 * Right after a checkout JDT's model still holds the build path and compiler options of the branch left: a state
	 * whose commit has another build path (one more library) and other compiler settings (its own {@code .settings})
	 * than the branch left is still built against what that commit is built against, and is restored — JDT then
	 * compiles nothing, and the switch ends equal to a clean build, both ways.
	 */
	@Test
	void aStateOfABranchWithAnotherBuildPathAndCompilerSettingsIsRestored() throws Exception {
		branchWithAnotherConfiguration();
		harness.autoBuild(true);
		project = repo.importProject();
		harness.manager().track();
		SwitchHarness.awaitQuiet();
		repo.switchTo("config", 0); // saves main; no state of config yet: JDT builds it
		assertEqualToCleanBuild("config");
		for (String branch : List.of("main", "config", "main")) {
			assertExactRestore(branch);
		}
	}

	/** The switch to the branch restores its exact state for the project: JDT then compiles nothing. */
	private void assertExactRestore(String branch) throws Exception {
		JdtBuilds.takeCompiled();
		String result = repo.switchTo(branch, 0);
		assertThat(result).as("the state of %s is restored", branch).containsPattern("restored_files=[1-9]")
				.doesNotContain("was built against other dependencies");
		assertThat(JdtBuilds.takeCompiled()).as("units JDT compiled after the exact restore of %s", branch).isEmpty();
		assertEqualToCleanBuild(branch);
	}

	/** Branch {@code config}: one more library on the build path, the project's own compiler settings (release 17). */
	private void branchWithAnotherConfiguration() throws Exception {
		Path other = temp.resolve("other/other.jar");
		Files.createDirectories(other.getParent());
		Files.copy(jar, other);
		String jrt = Path.of(System.getProperty("java.home"), "lib", "jrt-fs.jar").toString();
		repo.branch("config", Map.of(".classpath", classpath(jrt, jar, other), ".settings/org.eclipse.jdt.core.prefs", """
				eclipse.preferences.version=1
				org.eclipse.jdt.core.compiler.codegen.targetPlatform=17
				org.eclipse.jdt.core.compiler.compliance=17
				org.eclipse.jdt.core.compiler.source=17
				org.eclipse.jdt.core.compiler.release=enabled
				"""));
		repo.git.checkout().setName("main").call();
	}

	/**
	 * Writes the library and builds the project against it, as a user does after updating a library outside the
	 * workspace (nothing in the workspace changes, so no automatic build notices it).
	 */
	private void updateLibrary(String type, String value) throws Exception {
		writeLibrary(type, value);
		project.build(IncrementalProjectBuilder.FULL_BUILD, null);
		SwitchHarness.awaitQuiet();
	}

	/** Compiles {@code lib.L} whose {@code v()} returns the type given, with JDT, into the jar outside the workspace. */
	private void writeLibrary(String type, String value) throws Exception {
		String name = "lib" + System.nanoTime();
		Path folder = temp.resolve(name);
		Files.createDirectories(folder.resolve("src/lib"));
		for (Map.Entry<String, String> e : JavaRepository.projectFiles(name).entrySet()) {
			Files.writeString(folder.resolve(e.getKey()), e.getValue());
		}
		Files.writeString(folder.resolve("src/lib/L.java"),
				"package lib;\npublic class L {\n\tpublic static " + type + " v() { return " + value + "; }\n}\n");
		IWorkspace workspace = ResourcesPlugin.getWorkspace();
		IProjectDescription description = workspace.loadProjectDescription(IPath.fromPath(folder.resolve(".project")));
		IProject library = workspace.getRoot().getProject(name);
		try {
			library.create(description, null);
			library.open(null);
			library.build(IncrementalProjectBuilder.FULL_BUILD, null);
			byte[] bytes = Files.readAllBytes(folder.resolve("bin/lib/L.class"));
			Files.createDirectories(jar.getParent());
			try (OutputStream out = Files.newOutputStream(jar); JarOutputStream zip = new JarOutputStream(out)) {
				zip.putNextEntry(new JarEntry("lib/L.class"));
				zip.write(bytes);
				zip.closeEntry();
			}
		} finally {
			library.delete(true, true, null);
		}
	}

	/** @return a {@code .classpath}: src, the libraries, output bin */
	private static String classpath(Object... libraries) {
		StringBuilder b = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<classpath>\n");
		b.append("\t<classpathentry kind=\"src\" path=\"src\"/>\n");
		for (Object library : libraries) {
			b.append("\t<classpathentry kind=\"lib\" path=\"").append(library).append("\"/>\n");
		}
		return b.append("\t<classpathentry kind=\"output\" path=\"bin\"/>\n</classpath>\n").toString();
	}

	private void assertEqualToCleanBuild(String branch) throws Exception {
		assertThat(repo.git.getRepository().getBranch()).isEqualTo(branch);
		JavaRepository.Build actual = JavaRepository.Build.of(project);
		JavaRepository.Build clean = repo.cleanBuild(temp);
		assertThat(clean.output()).as("a clean build of " + branch + " compiles something").isNotEmpty();
		List<StateEvent> events = harness.takeEvents(repo.gitDir());
		assertThat(actual.differencesFrom(clean))
				.as("bin/ and markers on %s against a clean build; events: %s", branch, events).isEmpty();
	}
}
