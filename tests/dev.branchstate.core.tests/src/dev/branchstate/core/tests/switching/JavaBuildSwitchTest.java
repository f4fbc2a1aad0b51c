package dev.branchstate.core.tests.switching;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.eclipse.core.internal.events.BuildCommand;
import org.eclipse.core.internal.events.BuildManager;
import org.eclipse.core.internal.events.BuilderPersistentInfo;
import org.eclipse.core.internal.resources.Project;
import org.eclipse.core.internal.resources.Workspace;
import org.eclipse.core.resources.ICommand;
import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.IncrementalProjectBuilder;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.jdt.core.IClasspathEntry;
import org.eclipse.jdt.core.IJavaModelMarker;
import org.eclipse.jdt.core.IJavaProject;
import org.eclipse.jdt.core.JavaCore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.build.BuildManagerAccess;
import dev.branchstate.core.internal.service.RestoreJournal;
import dev.branchstate.core.internal.service.StateService;

/**
 * Branch switches of a Java project built by JDT's real builder: after every switch, {@code bin/} and the Java
 * problem markers equal a clean build of the working tree, byte for byte and marker for marker — also when a
 * branch is left before it was ever built, with automatic building off, and when a checkout happens while a build
 * runs.
 */
class JavaBuildSwitchTest {

	/** main: five classes; A1 has a warning (an unused private field), A2 uses A1. */
	private static final Map<String, String> MAIN = Map.of( //
			"src/p/A1.java", "package p;\npublic class A1 {\n\tprivate int unused;\n\tpublic int one() { return 1; }\n}\n",
			"src/p/A2.java", "package p;\npublic class A2 {\n\tint two() { return new A1().one() + 1; }\n}\n",
			"src/p/A3.java", "package p;\npublic class A3 {\n}\n", //
			"src/p/A4.java", "package p;\npublic class A4 {\n\tA3 three;\n}\n", //
			"src/p/A5.java", "package p;\npublic class A5 {\n\tclass Inner {}\n}\n");
	/** feat = main + X, which has a warning of its own (an unused import). */
	private static final Map<String, String> FEAT = Map.of("src/p/X.java",
			"package p;\nimport java.util.List;\npublic class X {\n\tA2 two;\n}\n");

	@TempDir
	Path temp;

	private SwitchHarness harness;
	private JavaRepository repo;
	private IProject project;

	@BeforeEach
	void setUp() throws Exception {
		harness = new SwitchHarness();
		repo = JavaRepository.create(temp.resolve("repo"), MAIN);
		repo.branch("feat", FEAT);
		repo.git.checkout().setName("main").call();
	}

	@AfterEach
	void tearDown() throws Exception {
		JdtBuilds.release();
		repo.discard(harness, project);
		harness.autoBuild(true);
		harness.close();
	}

	/**
	 * The scenario of the bug report with automatic building off (the headless switch builds after each switch, as
	 * the user would): {@code main} is left before it was ever built, so its derived data must not become its state.
	 */
	@Test
	void aBranchLeftBeforeItWasBuiltEndsEveryLaterSwitchEqualToACleanBuild_autoBuildOff() throws Exception {
		harness.autoBuild(false);
		project = repo.importProject();
		harness.manager().track();
		SwitchHarness.awaitQuiet();
		assertThat(JavaRepository.Build.of(project).output()).as("nothing is built before the first switch").isEmpty();

		String first = switchTo("feat");
		assertEqualToCleanBuild("feat");
		for (String branch : List.of("main", "feat", "main")) {
			switchTo(branch);
			assertEqualToCleanBuild(branch);
		}
		assertThat(first).as("the first switch's output").contains(
				"not saved: builder org.eclipse.jdt.core.javabuilder has not built project '" + project.getName() + "'");
		assertThat(harness.service.states(repo.gitDir()).stream().flatMap(s -> s.branches().stream()))
				.as("states saved once each branch was built").contains("main", "feat");
	}

	/**
	 * Automatic building on, and the first build of {@code main} still running when {@code feat} is checked out in
	 * a terminal: the switch interrupts the build, so what is on disk is no complete build of {@code main} and must
	 * not become its state; every later switch ends equal to a clean build.
	 */
	@Test
	void aCheckoutWhileTheFirstBuildRunsEndsEveryLaterSwitchEqualToACleanBuild() throws Exception {
		harness.autoBuild(true);
		JdtBuilds.hold();
		project = repo.importProject(); // the auto-build starts and is held before it compiles
		harness.manager().track();
		JdtBuilds.awaitHeld();
		repo.cli("checkout", "feat");
		Thread.sleep(500); // the HEAD watch schedules the switch, which waits for the build's rule
		JdtBuilds.release();
		SwitchHarness.awaitQuiet();
		project.refreshLocal(IResource.DEPTH_INFINITE, null);
		SwitchHarness.awaitQuiet();
		assertThat(harness.service.states(repo.gitDir()).stream().map(StateInfo::branches).toList())
				.as("no state of main from an interrupted build").noneMatch(b -> b.contains("main"));
		assertEqualToCleanBuild("feat");

		for (String branch : List.of("main", "feat", "main")) {
			switchTo(branch);
			assertEqualToCleanBuild(branch);
		}
	}

	/**
	 * A clean build of {@code main} whose rebuild is still running when {@code feat} is checked out in a terminal:
	 * the state of {@code main} stored before stays the one restored later, not the half-built output.
	 */
	@Test
	void aCheckoutWhileARebuildRunsKeepsTheCompleteStateOfTheBranchLeft() throws Exception {
		importAndBuild();
		switchTo("feat");
		switchTo("main");
		assertEqualToCleanBuild("main");
		assertThat(harness.service.states(repo.gitDir())).hasSize(2);

		JdtBuilds.hold();
		project.build(IncrementalProjectBuilder.CLEAN_BUILD, null); // Project › Clean…: the auto-build rebuilds
		JdtBuilds.awaitHeld();
		repo.cli("checkout", "feat");
		Thread.sleep(500);
		JdtBuilds.release();
		SwitchHarness.awaitQuiet();
		project.refreshLocal(IResource.DEPTH_INFINITE, null);
		SwitchHarness.awaitQuiet();
		assertEqualToCleanBuild("feat");

		for (String branch : List.of("main", "feat", "main")) {
			switchTo(branch);
			assertEqualToCleanBuild(branch);
		}
	}

	/**
	 * The nearest stored state for a commit has a source file that neither the commit left nor the one entered has:
	 * JDT would never hear that it is gone, so its class file would survive the restore and code could still
	 * compile against it. The restore is refused; the build then ends equal to a clean build, whose error marker
	 * says the type is missing.
	 */
	@Test
	void aStateWithASourceThatNeitherCommitHasIsNotRestored() throws Exception {
		repo.git.checkout().setName("main").call();
		repo.branch("base", FEAT); // main + X: the state that will be the nearest ancestor
		Map<String, String> target = new HashMap<>();
		target.put("src/p/X.java", null); // gone again, and A4 now needs it
		target.put("src/p/A4.java", "package p;\npublic class A4 {\n\tA3 three;\n\tX x;\n}\n");
		repo.branch("target", target);
		repo.git.checkout().setName("main").call();
		importAndBuild();
		switchTo("base");
		switchTo("main");
		harness.takeEvents(repo.gitDir());

		String output = switchTo("target");
		assertThat(output).contains("is not restored: " + project.getName() + "/src/p/X.java is in the state");
		assertEqualToCleanBuild("target");
		assertThat(JavaRepository.Build.of(project).output()).doesNotContainKey("bin/p/X.class");
	}

	/**
	 * A restore cancelled once it has begun to write: the derived data is removed (the derived-resources contributor
	 * empties what it was restoring) and JDT, which believed in the class files that were there, must build the
	 * project in full rather than go on with an empty output folder.
	 */
	@Test
	void aRestoreCancelledWhileWritingEndsInAFullBuildEqualToACleanBuild() throws Exception {
		importAndBuild();
		switchTo("feat");
		switchTo("main");
		String main = repo.git.getRepository().resolve("HEAD").name();

		CancelOnceWriting monitor = new CancelOnceWriting();
		assertThatThrownBy(() -> harness.service.restore(repo.gitDir(), main, monitor))
				.isInstanceOf(OperationCanceledException.class);
		assertThat(monitor.cancelledAt).as("cancelled after the verify, while restoring").isGreaterThan(0.30);
		SwitchHarness.awaitQuiet();
		assertEqualToCleanBuild("main");
	}

	/**
	 * The IDE killed while a restore writes (issue 12's soak kills it at random moments): what it leaves is the
	 * restore's record in the journal, an output folder half of each commit (here a class file of a type neither
	 * commit has) and the extractor's temporary file. JDT's next incremental build would keep all of it; the state
	 * service's recovery, run before that build, removes the derived data and has JDT build in full, so the result
	 * equals a clean build, and a save is refused until then. A restore that ends leaves no record.
	 */
	@Test
	void whatARestoreKilledWhileWritingLeftIsRemovedBeforeTheNextBuild() throws Exception {
		importAndBuild();
		switchTo("feat");
		switchTo("main");
		StateService service = (StateService) harness.service;
		RestoreJournal journal = service.restoreJournal();
		assertThat(journal.unfinished()).as("the records of the restores that ended").isEmpty();

		harness.autoBuild(false);
		journal.begin(List.of(project)).abandon(); // the record a killed restore leaves
		java.nio.file.Path bin = repo.workTree.resolve("bin/p");
		java.nio.file.Files.write(bin.resolve("Gone.class"), new byte[] { (byte) 0xca, (byte) 0xfe });
		java.nio.file.Files.write(bin.resolve(".bs-5eed.tmp"), new byte[] { 1, 2, 3 });
		project.refreshLocal(IResource.DEPTH_INFINITE, null);
		assertThatThrownBy(() -> harness.service.save(repo.gitDir(), null))
				.hasMessageContaining("a restore of project '" + project.getName() + "' did not finish");

		// the next build: its PRE_BUILD runs the recovery first
		project.getWorkspace().build(IncrementalProjectBuilder.INCREMENTAL_BUILD, null);
		harness.autoBuild(true);
		SwitchHarness.awaitQuiet();
		assertThat(journal.unfinished()).as("the record once recovered").isEmpty();
		assertEqualToCleanBuild("main");
		assertThat(harness.service.save(repo.gitDir(), null)).isNotNull();
	}

	/**
	 * Found by the soak (seed 11, step 342): the IDE killed after a restore of the nearest ancestor, before JDT's
	 * build. The hand-off lives in memory until a full save (core.resources writes the builders' last built trees and
	 * JDT its state at a full save only), so the next session's JDT went on from the last full save and never
	 * compiled a source that differs between the restored commit and the working tree: its class file stayed the
	 * restored commit's. The restore's record now stays on disk until JDT has built what it was handed (a kill before
	 * that: the next session's recovery removes the derived data and JDT builds in full), or a full save wrote the
	 * hand-off.
	 */
	@Test
	void aRestoresRecordStaysUntilTheBuildersHaveBuiltWhatItHandedOff() throws Exception {
		feat2AfterStatesOfFeatAndMain();
		switchTo("feat2");
		String feat = repo.git.getRepository().resolve("feat").name();
		RestoreJournal journal = ((StateService) harness.service).restoreJournal();
		assertThat(nextSession(journal)).as("the records once JDT has built after the switches").isEmpty();

		harness.autoBuild(false);
		harness.service.restore(repo.gitDir(), feat, null); // feat's output and JDT state: A3 to compile again
		assertThat(nextSession(journal)).as("what a kill before JDT's build leaves to the next session's recovery")
				.containsExactly(project.getName());
		project.getWorkspace().build(IncrementalProjectBuilder.INCREMENTAL_BUILD, null);
		assertThat(nextSession(journal)).as("the record once JDT has built").isEmpty();
		assertEqualToCleanBuild("feat2");

		harness.service.restore(repo.gitDir(), feat, null);
		assertThat(nextSession(journal)).as("the record of the second restore").containsExactly(project.getName());
		project.getWorkspace().save(true, null);
		assertThat(nextSession(journal)).as("the record once a full save wrote the hand-off").isEmpty();
		harness.autoBuild(true);
		SwitchHarness.awaitQuiet();
		assertEqualToCleanBuild("feat2");
	}

	/** @return the projects of the restores on record as the next session's recovery would read them */
	private static List<String> nextSession(RestoreJournal journal) throws java.io.IOException {
		return new RestoreJournal(journal.directory()).unfinished().stream().flatMap(u -> u.projects().stream())
				.toList();
	}

	/** Reports cancel once the restore's progress is past its verify step (about a third), i.e. while it writes. */
	private static final class CancelOnceWriting extends NullProgressMonitor {
		private double total = 100;
		private double done;
		volatile double cancelledAt;

		@Override
		public void beginTask(String name, int totalWork) {
			total = totalWork;
		}

		@Override
		public void internalWorked(double work) {
			done += work;
		}

		@Override
		public void worked(int work) {
			internalWorked(work);
		}

		@Override
		public boolean isCanceled() {
			if (cancelledAt == 0 && done / total > 0.36) {
				cancelledAt = done / total;
			}
			return cancelledAt > 0;
		}
	}

	/**
	 * Restore instead of rebuild: with the exact state of the branch entered stored, JDT is handed the restored
	 * commit with its output and its own state, and compiles nothing; the result equals a clean build.
	 */
	@Test
	void exactStatesAreHandedToJdtWhichCompilesNothing() throws Exception {
		importAndBuild();
		switchTo("feat");
		assertThat(JdtBuilds.takeCompiled()).as("no state of feat: JDT builds the checkout's change")
				.contains("src/p/X.java");
		assertEqualToCleanBuild("feat");

		for (String branch : List.of("main", "feat", "main")) {
			JdtBuilds.takeCompiled();
			String output = switchTo(branch);
			assertThat(output).contains("restored");
			assertThat(JdtBuilds.takeCompiled()).as("units JDT compiled after the exact restore of " + branch)
					.isEmpty();
			assertEqualToCleanBuild(branch);
		}
	}

	/**
	 * The output folders are those of the project's classpath — the default one and a source folder's own — with no
	 * glob in the preferences and whether or not their files are marked derived: here the derived flags are gone
	 * before each save, as for files that were refreshed from disk (a build outside the IDE, lost workspace
	 * metadata). Each branch still comes back as a clean build makes it, with nothing left for JDT to compile.
	 */
	@Test
	void theClasspathsOutputFoldersAreRestoredWithoutDerivedFlagsOrGlob() throws Exception {
		repo.close();
		Map<String, String> main = new HashMap<>(MAIN);
		main.put(".gitignore", "bin/\nbin-gen/\n");
		main.put("gen/q/G.java", "package q;\npublic class G {\n\tpublic p.A1 a;\n}\n");
		main.put(".classpath", """
				<?xml version="1.0" encoding="UTF-8"?>
				<classpath>
					<classpathentry kind="src" path="src"/>
					<classpathentry kind="src" path="gen" output="bin-gen"/>
					<classpathentry kind="lib" path="%s"/>
					<classpathentry kind="output" path="bin"/>
				</classpath>
				""".formatted(Path.of(System.getProperty("java.home"), "lib", "jrt-fs.jar")));
		repo = JavaRepository.create(temp.resolve("repo-outputs"), main);
		repo.branch("feat", Map.of("gen/q/H.java", "package q;\npublic class H extends G {\n}\n"));
		repo.git.checkout().setName("main").call();
		importAndBuild();
		assertThat(JavaRepository.Build.of(project).output()).containsKeys("bin/p/A1.class", "bin-gen/q/G.class");

		forgetDerivedFlags();
		switchTo("feat"); // saves main
		forgetDerivedFlags();
		JdtBuilds.takeCompiled();
		String output = switchTo("main"); // saves feat, restores main
		assertThat(output).contains("restored");
		assertThat(JdtBuilds.takeCompiled()).as("units JDT compiled after the exact restore of main: " + output)
				.isEmpty();
		assertEqualToCleanBuild("main");
		JdtBuilds.takeCompiled(); // the clean build's
		output = switchTo("feat");
		assertThat(output).contains("restored");
		assertThat(JdtBuilds.takeCompiled()).as("units JDT compiled after the exact restore of feat: " + output)
				.isEmpty();
		assertEqualToCleanBuild("feat");
		assertThat(JavaRepository.Build.of(project).output()).containsKey("bin-gen/q/H.class");
		JdtBuilds.takeCompiled();
		output = switchTo("main");
		assertThat(output).contains("restored");
		assertThat(JdtBuilds.takeCompiled()).as("units JDT compiled after the exact restore of main: " + output)
				.isEmpty();
		assertEqualToCleanBuild("main");
	}

	/**
	 * After a restart a builder that has not run yet has its last built tree only as the workspace read it back
	 * (where a builder without build configurations gets the configuration name ""): the first switch of the
	 * session still finds the branch it leaves built, and saves it.
	 */
	@Test
	void theFirstSwitchAfterARestartSavesTheBuiltBranchItLeaves() throws Exception {
		importAndBuild();
		asAfterARestart();
		assertThat(BuildManagerAccess.whyNotBuilt(project)).as("what the builders have built, read back").isEmpty();
		String output = switchTo("feat");
		assertThat(output).as("the switch leaving main").contains("saved").doesNotContain("not saved");
		assertThat(harness.service.states(repo.gitDir()).stream().flatMap(s -> s.branches().stream()))
				.contains("main");
		assertEqualToCleanBuild("feat");
	}

	/**
	 * Found by the soak (releng/soak, seed 3, step 6): the stored state of the branch entered is damaged in the
	 * middle of its archive. The restore is refused, and the switch ends as without Branchstate: equal to a clean
	 * build, output and markers.
	 */
	@Test
	void aDamagedStateOfTheBranchEnteredEndsEqualToACleanBuild() throws Exception {
		importAndBuild();
		switchTo("feat");
		switchTo("main");
		switchTo("feat");
		StateInfo main = harness.service.states(repo.gitDir()).stream().filter(s -> s.branches().contains("main"))
				.findFirst().orElseThrow();
		long size = java.nio.file.Files.size(main.archive());
		try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(main.archive().toFile(), "rw")) {
			for (long pos = size / 8; pos < size / 2; pos += 97) { // the entries' data, not the central directory
				raf.seek(pos);
				int v = raf.read();
				raf.seek(pos);
				raf.write(v ^ 0x5a);
			}
		}
		String output = switchTo("main", 1);
		assertThat(output).contains("Could not restore");
		assertEqualToCleanBuild("main");
		switchTo("feat");
		assertEqualToCleanBuild("feat");
	}

	/**
	 * Found by the soak (seed 2, step 12): a build in which JDT's compiler failed left JDT with no build state and the
	 * output folder half written, while the build manager counted the build as done; the workspace save at exit then
	 * saved that output as the state of the commit, and a later restore would have brought it back. JDT fails the
	 * same way, for real, when the build path is broken: the state is not saved, with a reason naming the project,
	 * and once the build path is repaired and JDT has built again, it is.
	 */
	@Test
	void aProjectWhoseLastJavaBuildFailedIsNotSaved() throws Exception {
		importAndBuild();
		IJavaProject javaProject = JavaCore.create(project);
		IClasspathEntry[] buildPath = javaProject.getRawClasspath();
		IClasspathEntry[] broken = Arrays.copyOf(buildPath, buildPath.length + 1);
		broken[buildPath.length] = JavaCore.newLibraryEntry(project.getFullPath().append("lib/missing.jar"), null,
				null);
		javaProject.setRawClasspath(broken, null);
		SwitchHarness.awaitQuiet();
		assertThat(project.findMarkers(IJavaModelMarker.JAVA_MODEL_PROBLEM_MARKER, false, IResource.DEPTH_ZERO))
				.as("JDT's aborted build").isNotEmpty();
		assertThat(BuildManagerAccess.whyNotBuilt(project)).as("the build manager counts the aborted build as done")
				.isEmpty();

		assertThatThrownBy(() -> harness.service.save(repo.gitDir(), null)).isInstanceOfSatisfying(
				CoreException.class, e -> assertThat(e.getStatus().getSeverity()).isEqualTo(IStatus.INFO))
				.hasMessageContaining(project.getName()).hasMessageContaining("JDT");
		assertThat(harness.service.states(repo.gitDir())).as("states stored").isEmpty();

		javaProject.setRawClasspath(buildPath, null);
		SwitchHarness.awaitQuiet();
		assertThat(harness.service.save(repo.gitDir(), null).commitId())
				.isEqualTo(repo.git.getRepository().resolve("HEAD").name());
	}

	/** The project's builders as a workspace restored at startup leaves them: not instantiated, trees read back. */
	private void asAfterARestart() throws CoreException {
		Workspace workspace = (Workspace) project.getWorkspace();
		workspace.run(monitor -> {
			BuildManager manager = workspace.getBuildManager();
			List<BuilderPersistentInfo> infos = manager.createBuildersPersistentInfo(project);
			assertThat(infos).as("the builders' last built states").isNotEmpty();
			for (BuilderPersistentInfo info : infos) {
				info.setConfigName(""); // as WorkspaceTreeReader_2 reads it
			}
			for (ICommand command : ((Project) project).internalGetDescription().getBuildSpec(false)) {
				((BuildCommand) command).setBuilders(null);
			}
			manager.setBuildersPersistentInfo(project, infos);
		}, project, IWorkspace.AVOID_UPDATE, null);
	}

	/** Clears the derived flag of every resource of the project, as a refresh from disk leaves new files. */
	private void forgetDerivedFlags() throws CoreException {
		project.accept(resource -> {
			if (resource.isDerived()) {
				resource.setDerived(false, null);
			}
			return true;
		});
	}

	/**
	 * The nearest stored ancestor: JDT is handed the state of feat and compiles only the file the commit after it
	 * changed (and what depends on it structurally); then an edit that changes a signature used by other files
	 * recompiles those as well — the restored JDT state knows the references. Both end equal to a clean build.
	 */
	@Test
	void aNearestAncestorIsHandedToJdtWhichCompilesOnlyWhatDiffers() throws Exception {
		feat2AfterStatesOfFeatAndMain();
		JdtBuilds.takeCompiled();

		String output = switchTo("feat2");
		assertThat(output).contains("restored");
		assertThat(JdtBuilds.takeCompiled()).as("units JDT compiled after the state of feat and the replay")
				.contains("src/p/A3.java").isSubsetOf("src/p/A3.java", "src/p/A4.java");
		assertEqualToCleanBuild("feat2");

		IFile a1 = project.getFile("src/p/A1.java");
		a1.setContents(new ByteArrayInputStream(
				"package p;\npublic class A1 {\n\tprivate int unused;\n\tpublic long one() { return 1; }\n}\n"
						.getBytes(StandardCharsets.UTF_8)), IResource.FORCE, null);
		SwitchHarness.awaitQuiet();
		assertThat(JdtBuilds.takeCompiled()).as("a signature change recompiles its users")
				.contains("src/p/A1.java", "src/p/A2.java");
		JavaRepository.Build actual = JavaRepository.Build.of(project);
		assertThat(actual.differencesFrom(repo.cleanBuild(temp))).as("after the edit").isEmpty();
		a1.setContents(new ByteArrayInputStream(MAIN.get("src/p/A1.java").getBytes(StandardCharsets.UTF_8)),
				IResource.FORCE, null);
	}

	/**
	 * Without the internal build manager (the capability check fails), nothing is handed to JDT: it builds the
	 * checkout's change itself, and the switch still ends equal to a clean build.
	 */
	@Test
	void withoutTheInternalBuildManagerJdtBuildsTheChangeAndTheResultIsStillRight() throws Exception {
		importAndBuild();
		switchTo("feat");
		switchTo("main");
		BuildManagerAccess.setAvailable(false);
		try {
			JdtBuilds.takeCompiled();
			switchTo("feat");
			assertThat(JdtBuilds.takeCompiled()).as("JDT builds what the checkout changed").contains("src/p/X.java");
			assertEqualToCleanBuild("feat");
			switchTo("main");
			assertEqualToCleanBuild("main");
		} finally {
			BuildManagerAccess.setAvailable(true);
		}
	}

	/**
	 * feat2 = feat with a body in A3; imports and builds main, then switches to feat and back, which stores the states
	 * of both (feat's is the nearest stored ancestor of feat2).
	 */
	private void feat2AfterStatesOfFeatAndMain() throws Exception {
		repo.git.checkout().setName("feat").call();
		repo.branch("feat2", Map.of("src/p/A3.java", "package p;\npublic class A3 {\n\tint body() { return 3; }\n}\n"));
		repo.git.checkout().setName("main").call();
		importAndBuild();
		switchTo("feat");
		switchTo("main");
	}

	/** Imports the project with automatic building on, and waits until JDT has built it. */
	private void importAndBuild() throws Exception {
		harness.autoBuild(true);
		project = repo.importProject();
		harness.manager().track();
		SwitchHarness.awaitQuiet();
	}

	/** The headless {@code switch} command (checkout with JGit, the switch, the build, the background jobs). */
	private String switchTo(String branch) throws Exception {
		return switchTo(branch, 0);
	}

	/** @param exit the exit code expected: 1 when the switch reports a failure (a restore refused, say) */
	private String switchTo(String branch, int exit) throws Exception {
		return repo.switchTo(branch, exit);
	}

	private void assertEqualToCleanBuild(String branch) throws Exception {
		assertThat(repo.git.getRepository().getBranch()).isEqualTo(branch);
		JavaRepository.Build actual = JavaRepository.Build.of(project);
		JavaRepository.Build clean = repo.cleanBuild(temp);
		assertThat(clean.output()).as("a clean build of " + branch + " compiles something").isNotEmpty();
		assertThat(clean.markers()).as("a clean build of " + branch + " has warnings").isNotEmpty();
		List<StateEvent> events = harness.takeEvents(repo.gitDir());
		assertThat(actual.differencesFrom(clean))
				.as("bin/ and markers on %s against a clean build; events: %s", branch, events).isEmpty();
	}
}
