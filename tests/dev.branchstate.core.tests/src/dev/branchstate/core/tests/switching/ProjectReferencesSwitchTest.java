package dev.branchstate.core.tests.switching;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.jdt.core.IJavaModelMarker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.core.StateEvent;
import dev.branchstate.core.internal.build.BuildManagerAccess;

/**
 * Java projects that read each other through project entries, in one repository, built by JDT's real builder and
 * imported with the headless {@code import} command: every switch ends equal to a clean build of the working tree,
 * project by project (output byte for byte, JDT's markers of every kind), and a project whose build cannot complete
 * is left to its builders without keeping the others' state from being saved and restored.
 */
class ProjectReferencesSwitchTest {

	/** core: a constant and a method that downstream projects use; a warning (unused import). */
	private static final String API = """
			package core;
			public class Api {
				public static final int LIMIT = %s;
				public %s size() { return 1; }
			}
			""";

	@TempDir
	Path temp;

	private SwitchHarness harness;
	private JavaProjects repo;

	@BeforeEach
	void setUp() throws Exception {
		harness = new SwitchHarness();
	}

	@AfterEach
	void tearDown() throws Exception {
		if (repo != null) {
			repo.discard(harness);
		}
		harness.autoBuild(true);
		harness.close();
	}

	/** core; app reads core (inlines its constant, calls its method); tool reads core and app. */
	private static Map<String, String> layers(JavaProjects r) {
		Map<String, String> files = new HashMap<>();
		files.putAll(r.project("core", List.of(), List.of()));
		files.putAll(r.project("app", List.of("core"), List.of()));
		files.putAll(r.project("tool", List.of("core", "app"), List.of()));
		files.put("core/src/core/Api.java", API.formatted("1", "int"));
		files.put("core/src/core/Unused.java", "package core;\nimport java.util.List;\npublic class Unused {\n}\n");
		files.put("app/src/app/Limit.java", "package app;\npublic class Limit {\n\tint limit() { return core.Api.LIMIT; }\n}\n");
		files.put("app/src/app/Size.java",
				"package app;\npublic class Size {\n\tpublic int size(core.Api api) { return api.size(); }\n}\n");
		files.put("app/src/app/Alone.java", "package app;\npublic class Alone {\n\tprivate int unused;\n}\n");
		files.put("tool/src/tool/Tool.java",
				"package tool;\npublic class Tool {\n\tint both() { return new app.Size().size(new core.Api()) + core.Api.LIMIT; }\n}\n");
		return files;
	}

	/**
	 * main; feat changes core's constant (inlined by app and tool); feat2, one commit after feat, changes the
	 * return type of the method app calls (an API change that breaks app: an error marker). Exact states are handed
	 * to JDT, which compiles nothing in any project; from the nearest ancestor JDT compiles the upstream change and
	 * the downstream classes that use it, not the others.
	 */
	@Test
	void dependentProjectsEndEqualToACleanBuildAndJdtCompilesOnlyWhatDiffers() throws Exception {
		layersWithFeatAndFeat2();
		importAndBuild();
		assertEqualToCleanBuild("main");

		repo.switchTo("feat", 0);
		assertEqualToCleanBuild("feat");
		JdtBuilds.takeCompiled();
		String toMain = repo.switchTo("main", 0);
		assertThat(toMain).contains("restored_files=");
		assertThat(JdtBuilds.takeCompiled()).as("JDT compiles nothing after the exact state of main: %s", toMain)
				.isEmpty();
		assertEqualToCleanBuild("main");
		JdtBuilds.takeCompiled(); // (the clean build's)
		repo.switchTo("feat", 0);
		assertThat(JdtBuilds.takeCompiled()).as("JDT compiles nothing after the exact state of feat").isEmpty();
		assertEqualToCleanBuild("feat");

		JdtBuilds.takeCompiled();
		String toFeat2 = repo.switchTo("feat2", 0);
		assertThat(toFeat2).contains("restored");
		assertThat(JdtBuilds.takeCompiled()).as("units compiled after the state of feat, the nearest ancestor")
				.contains("src/core/Api.java", "src/app/Size.java").doesNotContain("src/app/Alone.java");
		assertEqualToCleanBuild("feat2");
		assertThat(repo.builds().get("app").markers()).as("the API change breaks app")
				.anyMatch(m -> m.startsWith("src/app/Size.java:3 ") && m.contains(" 2 "));

		JdtBuilds.takeCompiled();
		repo.switchTo("main", 0);
		assertThat(JdtBuilds.takeCompiled()).as("JDT compiles nothing after the exact state of main").isEmpty();
		assertEqualToCleanBuild("main");
	}

	/**
	 * A restore hands JDT the state of feat for feat2 while the builders have no last built state (as an interrupted
	 * build leaves them: the platform makes a builder that is cancelled forget its state, and a start-up build
	 * interrupted by another job's rule does it). The replay makes core build again (the API change), and app and tool,
	 * which read core, must build again after it: the hand-off gives their builders the projects they read. (Before, a
	 * builder with no last built state was handed none, and app kept class files compiled against the old API: found
	 * by the plug-in run, releng/pde.)
	 */
	@Test
	void aBuilderHandedAStateWithoutItsLastBuiltStateBuildsAgainWhenAProjectItReadsChanges() throws Exception {
		layersWithFeatAndFeat2();
		importAndBuild();
		List<String> compiled = compiledAfterTheStateOfFeatForFeat2WithoutBuiltStates();
		assertThat(compiled).as("units compiled after the state of feat")
				.contains("src/core/Api.java", "src/app/Size.java", "src/tool/Tool.java")
				.doesNotContain("src/app/Alone.java");
		assertEqualToCleanBuild("feat2");
	}

	/**
	 * As above, with a project read through another's export: mid exports core, app reads mid only and uses core's
	 * API. JDT's builder of app reads core's delta (core is on app's expanded classpath, in no reference of app), so
	 * the hand-off must make core interesting to it: without core's delta JDT builds app in full ("deltas are
	 * missing"), as the plug-in benchmark showed for bundles re-exported by a target platform bundle.
	 */
	@Test
	void aBuilderHandedAStateGetsTheDeltaOfAProjectItReadsThroughAnExport() throws Exception {
		repo = JavaProjects.create(temp.resolve("repo"), r -> {
			Map<String, String> files = new HashMap<>();
			files.putAll(r.project("core", List.of(), List.of()));
			Map<String, String> mid = new HashMap<>(r.project("mid", List.of("core"), List.of()));
			mid.put("mid/.classpath", mid.get("mid/.classpath").replace("kind=\"src\" path=\"/" + r.name("core"),
					"exported=\"true\" kind=\"src\" path=\"/" + r.name("core")));
			files.putAll(mid);
			files.putAll(r.project("app", List.of("mid"), List.of()));
			files.put("core/src/core/Api.java", API.formatted("1", "int"));
			files.put("mid/src/mid/Mid.java", "package mid;\npublic class Mid {\n}\n");
			files.put("app/src/app/Size.java",
					"package app;\npublic class Size {\n\tpublic int size(core.Api api) { return api.size(); }\n}\n");
			files.put("app/src/app/Alone.java", "package app;\npublic class Alone {\n}\n");
			return files;
		});
		repo.branch("feat", Map.of("core/src/core/Api.java", API.formatted("2", "int")));
		repo.branch("feat2", Map.of("core/src/core/Api.java", API.formatted("2", "long")));
		repo.git.checkout().setName("main").call();
		importAndBuild();
		List<String> compiled = compiledAfterTheStateOfFeatForFeat2WithoutBuiltStates();
		assertThat(compiled).as("units compiled after the state of feat")
				.contains("src/core/Api.java", "src/app/Size.java").doesNotContain("src/app/Alone.java");
		assertEqualToCleanBuild("feat2");
	}

	/**
	 * core and app build; broken has a missing library on main (a build-path error), and user reads broken. A state
	 * of main holds core and app and leaves broken and user to their builders, saying so; feat repairs broken, and its
	 * state holds all four. Every switch ends equal to a clean build, and the exact restores of main hand core and
	 * app to JDT, which compiles nothing in them.
	 */
	@Test
	void aProjectWhoseBuildCannotCompleteIsLeftToItsBuildersAndTheOthersAreSaved() throws Exception {
		repo = JavaProjects.create(temp.resolve("repo"), r -> {
			Map<String, String> files = new HashMap<>();
			files.putAll(r.project("core", List.of(), List.of()));
			files.putAll(r.project("app", List.of("core"), List.of()));
			files.putAll(r.project("broken", List.of(), List.of("lib/missing.jar")));
			files.putAll(r.project("user", List.of("broken"), List.of()));
			files.put("core/src/core/Api.java", API.formatted("1", "int"));
			files.put("app/src/app/Limit.java",
					"package app;\npublic class Limit {\n\tint limit() { return core.Api.LIMIT; }\n}\n");
			files.put("broken/src/broken/B.java", "package broken;\npublic class B {\n\tpublic int b() { return 1; }\n}\n");
			files.put("user/src/user/U.java", "package user;\npublic class U {\n\tint u() { return new broken.B().b(); }\n}\n");
			return files;
		});
		Map<String, String> repaired = new HashMap<>(repo.project("broken", List.of(), List.of()));
		repaired.put("core/src/core/Api.java", API.formatted("3", "int"));
		repo.branch("feat", repaired);
		repo.git.checkout().setName("main").call();
		importAndBuild();
		assertThat(buildPathErrors(repo.projects().get("broken"))).as("a clean build of broken on main fails")
				.isNotEmpty();
		assertEqualToCleanBuild("main");

		repo.switchTo("feat", 0);
		List<StateEvent> events = harness.takeEvents(repo.gitDir());
		assertThat(events).as("the state of main is saved without broken and user, and says why")
				.anyMatch(e -> e.kind() == StateEvent.Kind.SAVED && e.message().contains("'" + repo.name("broken")
						+ "': JDT has not completed a build") && e.message().contains("'" + repo.name("user") + "': ")
						&& !e.message().contains("'" + repo.name("app") + "'")
						&& !e.message().contains("'" + repo.name("core") + "'"));
		assertEqualToCleanBuild("feat");

		for (int round = 0; round < 2; round++) {
			JdtBuilds.takeCompiled();
			Map<String, JavaRepository.Build> before = repo.builds();
			String toMain = repo.switchTo("main", 0);
			assertThat(toMain).contains("restored");
			assertThat(JdtBuilds.takeCompiled()).as("JDT compiles nothing after the state of main").isEmpty();
			assertEqualToCleanBuildWithAbortedBuilds("main", before, "broken", "user");

			JdtBuilds.takeCompiled();
			repo.switchTo("feat", 0);
			assertThat(JdtBuilds.takeCompiled()).as("the state of feat holds all four projects: nothing to compile")
					.isEmpty();
			assertEqualToCleanBuild("feat");
		}
	}

	/**
	 * As {@link #assertEqualToCleanBuild}, except for projects whose build JDT aborts (a build-path error in them or
	 * in a project they read): JDT leaves their output folders as they were, with or without Branchstate, so theirs
	 * must be what they were before the switch (Branchstate did not touch them) and only their markers must equal a
	 * clean build's.
	 */
	private void assertEqualToCleanBuildWithAbortedBuilds(String branch, Map<String, JavaRepository.Build> before,
			String... aborted) throws Exception {
		Map<String, JavaRepository.Build> actual = repo.builds();
		Map<String, JavaRepository.Build> clean = repo.cleanBuild(temp);
		List<StateEvent> events = harness.takeEvents(repo.gitDir());
		for (String project : clean.keySet()) {
			JavaRepository.Build expected = List.of(aborted).contains(project)
					? new JavaRepository.Build(before.get(project).output(), clean.get(project).markers())
					: clean.get(project);
			assertThat(actual.get(project).differencesFrom(expected))
					.as("%s on %s against a clean build; events: %s", project, branch, events).isEmpty();
		}
		for (String project : aborted) {
			assertThat(actual.get(project).markers()).as("%s: JDT's aborted build", project)
					.anyMatch(m -> m.contains("cannot be built") || m.contains("was not built"));
		}
	}

	/**
	 * The headless import creates all the projects of a repository in one workspace operation, so JDT never checks
	 * a classpath while a project it reads is missing: twenty imports of projects that read each other (the readers
	 * first in the file walk's order, whatever it is) leave no build-path error.
	 */
	@Test
	void importingProjectsThatReadEachOtherLeavesNoBuildPathError() throws Exception {
		repo = JavaProjects.create(temp.resolve("repo"), ProjectReferencesSwitchTest::layers);
		harness.autoBuild(true);
		for (int round = 0; round < 20; round++) {
			Map<String, IProject> projects = repo.importAll();
			SwitchHarness.awaitQuiet();
			assertThat(projects).hasSize(3);
			for (IProject project : projects.values()) {
				assertThat(buildPathErrors(project)).as("round %d: %s", round, project.getName()).isEmpty();
			}
			assertThat(repo.builds().get("tool").output()).as("round %d: tool is built", round)
					.containsKey("bin/tool/Tool.class");
			for (IProject project : projects.values()) {
				project.delete(false, true, null);
			}
		}
	}

	/**
	 * {@link #layers} on main; feat changes core's constant (inlined by app and tool); feat2, one commit after feat,
	 * changes the return type of the method app calls (an API change that breaks app). Checks out main.
	 */
	private void layersWithFeatAndFeat2() throws Exception {
		repo = JavaProjects.create(temp.resolve("repo"), ProjectReferencesSwitchTest::layers);
		repo.branch("feat", Map.of("core/src/core/Api.java", API.formatted("2", "int")));
		repo.branch("feat2", Map.of("core/src/core/Api.java", API.formatted("2", "long")));
		repo.git.checkout().setName("main").call();
	}

	private static List<String> buildPathErrors(IProject project) throws Exception {
		return java.util.Arrays
				.stream(project.findMarkers(IJavaModelMarker.BUILDPATH_PROBLEM_MARKER, false, IResource.DEPTH_ZERO))
				.map(m -> m.getAttribute(IMarker.MESSAGE, "")).toList();
	}

	/**
	 * Switches feat, main, feat; then checks out feat2 with automatic switching and building off, makes every
	 * builder forget its last built state, restores the state of feat and lets JDT build. @return the units compiled
	 */
	private List<String> compiledAfterTheStateOfFeatForFeat2WithoutBuiltStates() throws Exception {
		repo.switchTo("feat", 0);
		repo.switchTo("main", 0);
		repo.switchTo("feat", 0);
		String feat = repo.git.getRepository().resolve("HEAD").name();

		// feat2 checked out with automatic switching and building off, the builders' last built states gone
		harness.stopManager();
		List<String> compiled;
		try {
			harness.autoBuild(false);
			repo.git.checkout().setName("feat2").call();
			IWorkspace workspace = ResourcesPlugin.getWorkspace();
			workspace.run(monitor -> {
				for (IProject project : repo.projects().values()) {
					project.refreshLocal(IResource.DEPTH_INFINITE, null);
					assertThat(BuildManagerAccess.forgetBuiltState(project)).isTrue();
				}
			}, workspace.getRoot(), IWorkspace.AVOID_UPDATE, null);
			harness.service.restore(repo.gitDir(), feat, null);
			JdtBuilds.takeCompiled();
			harness.autoBuild(true);
			SwitchHarness.awaitQuiet();
			compiled = JdtBuilds.takeCompiled();
		} finally {
			harness.autoBuild(true);
			harness.startManager();
		}
		return compiled;
	}

	private void importAndBuild() throws Exception {
		harness.autoBuild(true);
		repo.importAll();
		harness.manager().track();
		SwitchHarness.awaitQuiet();
	}

	private void assertEqualToCleanBuild(String branch) throws Exception {
		assertThat(repo.git.getRepository().getBranch()).isEqualTo(branch);
		Map<String, JavaRepository.Build> actual = repo.builds();
		Map<String, JavaRepository.Build> clean = repo.cleanBuild(temp);
		assertThat(actual.keySet()).isEqualTo(clean.keySet());
		List<StateEvent> events = harness.takeEvents(repo.gitDir());
		for (String project : clean.keySet()) {
			assertThat(actual.get(project).differencesFrom(clean.get(project)))
					.as("%s on %s against a clean build; events: %s", project, branch, events).isEmpty();
		}
		assertThat(clean.get("core").output()).as("a clean build compiles core").isNotEmpty();
	}
}
