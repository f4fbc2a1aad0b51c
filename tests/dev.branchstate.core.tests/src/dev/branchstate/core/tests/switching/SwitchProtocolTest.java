package dev.branchstate.core.tests.switching;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.IncrementalProjectBuilder;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.ILogListener;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Platform;
import org.eclipse.core.runtime.preferences.IEclipsePreferences;
import org.eclipse.core.runtime.preferences.InstanceScope;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateEvent.Kind;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.app.SwitchCommand;
import dev.branchstate.core.internal.service.StateService;

/**
 * The switch protocol end to end on a real workspace: a repository with branches main (A) and B, a project on its
 * work tree built by the {@link RecordingBuilder}, checkouts made with JGit's CheckoutCommand (as in the IDE) and with
 * the git command line (as in a terminal).
 */
class SwitchProtocolTest {

	/** main: a, b, c; B: a changed, c deleted, d added. */
	private static final Map<String, String> MAIN = files("src/a.txt", "alpha\n", "src/b.txt", "bravo\nERROR in b\n",
			"src/c.txt", "charlie\nERROR in c\n", "src/sub/s.txt", "sierra\n");
	private static final Map<String, String> ON_B = files("src/a.txt", "alpha on B\nERROR in a\n", "src/c.txt", null,
			"src/d.txt", "delta\nERROR in d\n");

	@TempDir
	Path temp;

	private SwitchHarness harness;
	private GitFixture repo;
	private IProject project;
	private String commitA;
	private String commitB;

	@BeforeEach
	void setUp() throws Exception {
		harness = new SwitchHarness();
		harness.autoBuild(true);
		repo = GitFixture.create(temp.resolve("repo"), MAIN);
		commitA = repo.git.getRepository().resolve("HEAD").name();
		commitB = repo.branch("B", ON_B);
		repo.git.checkout().setName("main").call();
		project = repo.project("");
		harness.manager().track();
		SwitchHarness.awaitQuiet();
		assertThat(RecordingBuilder.record(project)).containsExactlyInAnyOrder("compile src/a.txt",
				"compile src/b.txt", "compile src/c.txt", "compile src/sub/s.txt");
		RecordingBuilder.reset(project);
		harness.takeEvents(repo.gitDir());
	}

	@AfterEach
	void tearDown() throws Exception {
		RecordingBuilder.validation = null;
		RecordingBuilder.validatesInPlace = false;
		SwitchHarness.awaitQuiet();
		if (project != null && project.exists()) {
			project.delete(false, true, null);
		}
		if (repo != null) {
			repo.close();
		}
		if (harness != null) {
			harness.autoBuild(true);
			harness.close();
		}
	}

	@Test
	void backAndForthWithJGitCheckoutRestoresDerivedFilesAndMarkersAndRebuildsOnlyTheDifference() throws Exception {
		Map<String, byte[]> derivedA = GitFixture.derived(project);
		TreeSet<String> markersA = GitFixture.markers(project);
		assertThat(markersA).hasSize(2);

		checkoutInIde("B");
		assertThat(RecordingBuilder.record(project)).containsExactlyInAnyOrder("compile src/a.txt",
				"remove src/c.txt", "compile src/d.txt");
		assertThat(repo.diff(commitA, commitB)).containsExactlyInAnyOrder("src/a.txt", "src/c.txt", "src/d.txt");
		List<StateEvent> toB = harness.takeEvents(repo.gitDir());
		assertThat(toB).filteredOn(e -> e.kind() == Kind.SAVED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitA));
		assertThat(toB).noneMatch(e -> e.kind() == Kind.RESTORED || e.kind() == Kind.FAILED);
		assertThat(toB).filteredOn(e -> e.kind() == Kind.SKIPPED).singleElement()
				.satisfies(e -> assertThat(e.message()).contains("already is the nearest stored state"));
		Map<String, byte[]> derivedB = GitFixture.derived(project);
		assertThat(derivedB.keySet()).contains("bin/d.txt.out").doesNotContain("bin/c.txt.out");
		RecordingBuilder.reset(project);

		checkoutInIde("main");
		assertThat(RecordingBuilder.record(project)).as("nothing rebuilt on return to A").isEmpty();
		assertSameBytes(GitFixture.derived(project), derivedA);
		assertThat(GitFixture.markers(project)).isEqualTo(markersA);
		assertThat(project.getFolder("bin").isDerived()).isTrue();
		List<StateEvent> toA = harness.takeEvents(repo.gitDir());
		assertThat(toA).filteredOn(e -> e.kind() == Kind.SAVED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitB));
		assertThat(toA).filteredOn(e -> e.kind() == Kind.RESTORED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitA));
		assertThat(toA).noneMatch(e -> e.kind() == Kind.FAILED);

		RecordingBuilder.reset(project);
		checkoutInIde("B");
		assertThat(RecordingBuilder.record(project)).as("nothing rebuilt on return to B").isEmpty();
		assertSameBytes(GitFixture.derived(project), derivedB);
	}

	@Test
	void terminalCheckoutFollowedByRefreshIsHandledBeforeTheFirstBuild() throws Exception {
		Map<String, byte[]> derivedA = GitFixture.derived(project);
		TreeSet<String> markersA = GitFixture.markers(project);

		repo.cli("checkout", "-q", "B");
		project.refreshLocal(IResource.DEPTH_INFINITE, null); // auto-build follows
		SwitchHarness.awaitQuiet();
		assertThat(RecordingBuilder.record(project)).containsExactlyInAnyOrder("compile src/a.txt",
				"remove src/c.txt", "compile src/d.txt");
		assertThat(harness.takeEvents(repo.gitDir())).filteredOn(e -> e.kind() == Kind.SAVED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitA));
		RecordingBuilder.reset(project);

		repo.cli("checkout", "-q", "main");
		project.refreshLocal(IResource.DEPTH_INFINITE, null);
		SwitchHarness.awaitQuiet();
		assertThat(RecordingBuilder.record(project)).as("the first build after the refresh saw the restored state")
				.isEmpty();
		assertSameBytes(GitFixture.derived(project), derivedA);
		assertThat(GitFixture.markers(project)).isEqualTo(markersA);
		List<StateEvent> events = harness.takeEvents(repo.gitDir());
		assertThat(events).noneMatch(e -> e.kind() == Kind.FAILED);
		assertThat(events).filteredOn(e -> e.kind() == Kind.SAVED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitB));
		assertThat(events).filteredOn(e -> e.kind() == Kind.RESTORED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitA));
	}

	@ParameterizedTest(name = "terminal checkout: {0}")
	@ValueSource(booleans = { false, true })
	void aBuildThatStartsBeforeTheSwitchJobHandlesTheSwitchInPreBuild(boolean terminal) throws Exception {
		harness.autoBuild(false);
		Map<String, byte[]> derivedA = GitFixture.derived(project);
		TreeSet<String> markersA = GitFixture.markers(project);
		checkoutInIde("B");
		harness.workspace.build(IncrementalProjectBuilder.INCREMENTAL_BUILD, null);
		SwitchHarness.awaitQuiet();
		RecordingBuilder.reset(project);
		harness.takeEvents(repo.gitDir());

		// Holding the workspace root rule keeps the switch job (woken by the JGit ref event or the HEAD watch)
		// waiting: only the PRE_BUILD listener can handle the switch before the builder runs.
		harness.workspace.run(monitor -> {
			try {
				if (terminal) {
					repo.cli("checkout", "-q", "main");
				} else {
					repo.git.checkout().setName("main").call();
				}
			} catch (Exception e) {
				throw new IllegalStateException(e);
			}
			project.refreshLocal(IResource.DEPTH_INFINITE, null);
			harness.workspace.build(IncrementalProjectBuilder.INCREMENTAL_BUILD, null);
			assertThat(RecordingBuilder.record(project)).as("the builder saw the restored state").isEmpty();
		}, harness.workspace.getRoot(), 0, null);
		SwitchHarness.awaitQuiet();

		assertThat(RecordingBuilder.record(project)).isEmpty();
		assertSameBytes(GitFixture.derived(project), derivedA);
		assertThat(GitFixture.markers(project)).isEqualTo(markersA);
		List<StateEvent> events = harness.takeEvents(repo.gitDir());
		assertThat(events).noneMatch(e -> e.kind() == Kind.FAILED);
		assertThat(events).filteredOn(e -> e.kind() == Kind.SAVED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitB));
		assertThat(events).filteredOn(e -> e.kind() == Kind.RESTORED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitA));
	}

	@Test
	void aBranchThatMovedSinceItsStateGetsTheNearestAncestorAndOnlyTheChangesAreRebuilt() throws Exception {
		checkoutInIde("B");
		Map<String, byte[]> derivedB = GitFixture.derived(project);
		checkoutInIde("main");
		String movedB = repo.commitOnBranchElsewhere("B",
				files("src/b.txt", "bravo moved\nERROR moved\n", "src/e.txt", "echo\n"));
		RecordingBuilder.reset(project);
		harness.takeEvents(repo.gitDir());

		checkoutInIde("B");

		assertThat(repo.git.getRepository().resolve("HEAD").name()).isEqualTo(movedB);
		assertThat(RecordingBuilder.record(project)).as("only the files changed since B's state")
				.containsExactlyInAnyOrder("compile src/b.txt", "compile src/e.txt");
		assertThat(harness.takeEvents(repo.gitDir())).filteredOn(e -> e.kind() == Kind.RESTORED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitB));
		Map<String, byte[]> now = GitFixture.derived(project);
		for (String untouched : List.of("bin/a.txt.out", "bin/d.txt.out", "bin/sub/s.txt.out")) {
			assertThat(now.get(untouched)).as(untouched).isEqualTo(derivedB.get(untouched));
		}
		assertThat(new String(now.get("bin/b.txt.out"))).contains("BRAVO MOVED");
		assertThat(GitFixture.markers(project)).anyMatch(m -> m.startsWith("src/b.txt") && m.contains("ERROR moved"))
				.anyMatch(m -> m.startsWith("src/d.txt"));
	}

	@Test
	void aHeadMovedWhileEclipseWasClosedIsASwitchAtStartUp() throws Exception {
		Map<String, byte[]> derivedA = GitFixture.derived(project);
		checkoutInIde("B");
		harness.takeEvents(repo.gitDir());
		RecordingBuilder.reset(project);

		harness.workspace.save(true, null); // shutdown: saves the state of B
		assertThat(harness.takeEvents(repo.gitDir())).filteredOn(e -> e.kind() == Kind.SAVED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitB));
		harness.stopManager();
		repo.git.checkout().setName("main").call();
		harness.startManager();
		SwitchHarness.awaitQuiet();
		project.refreshLocal(IResource.DEPTH_INFINITE, null);
		SwitchHarness.awaitQuiet();

		List<StateEvent> events = harness.takeEvents(repo.gitDir());
		assertThat(events).as("data on disk may have changed while closed: not saved").noneMatch(
				e -> e.kind() == Kind.SAVED);
		assertThat(events).anyMatch(e -> e.kind() == Kind.SKIPPED && e.message().contains("while Eclipse was closed"));
		assertThat(events).filteredOn(e -> e.kind() == Kind.RESTORED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitA));
		assertThat(RecordingBuilder.record(project)).isEmpty();
		assertSameBytes(GitFixture.derived(project), derivedA);
	}

	@Test
	void aStateRestoredBeforeARestartIsNotSavedAgainByTheFirstSwitchAfterIt() throws Exception {
		checkoutInIde("B");
		checkoutInIde("main"); // saves B, restores A: the disk is A's stored state
		assertThat(harness.takeEvents(repo.gitDir())).anyMatch(e -> e.kind() == Kind.RESTORED);

		harness.workspace.save(true, null); // shutdown: nothing to save, the disk is a stored state
		harness.stopManager();
		harness.startManager(); // Eclipse starts again, HEAD did not move
		SwitchHarness.awaitQuiet();
		assertThat(harness.takeEvents(repo.gitDir())).noneMatch(e -> e.kind() == Kind.SAVED);

		checkoutInIde("B");
		List<StateEvent> events = harness.takeEvents(repo.gitDir());
		assertThat(events).as("the state of A is not saved again").noneMatch(e -> e.kind() == Kind.SAVED);
		assertThat(events).filteredOn(e -> e.kind() == Kind.RESTORED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitB));
	}

	@Test
	void aTerminalCheckoutIsNoticedWithoutWaitingForABuild() throws Exception {
		harness.autoBuild(false);
		repo.cli("checkout", "-q", "B");
		StateEvent saved = harness.awaitEvent(repo.gitDir(), e -> e.kind() == Kind.SAVED);
		assertThat(saved.commitId()).isEqualTo(commitA);
		assertThat(saved.branch()).isEqualTo("main");
		assertThat(harness.awaitEvent(repo.gitDir(), e -> e.kind() == Kind.SKIPPED).message())
				.contains("nothing restored");
		assertThat(harness.takeEvents(repo.gitDir())).noneMatch(e -> e.kind() == Kind.RESTORED);
	}

	/**
	 * The headless {@code await-switch}, as the soak's long-lived session uses it after a terminal checkout: it asks
	 * for no check, and returns once the session's own detection (the HEAD watch) has handled the checkout.
	 */
	@Test
	void awaitSwitchReturnsOnceTheHeadWatchHasHandledATerminalCheckout() throws Exception {
		harness.autoBuild(false);
		repo.cli("checkout", "-q", "B");
		assertThat(JavaProjects.command(0, "await-switch", repo.workTree.toString())).contains("switch handled");
		assertThat(harness.takeEvents(repo.gitDir())).anyMatch(e -> e.kind() == Kind.SAVED && e.commitId().equals(commitA))
				.anyMatch(e -> e.kind() == Kind.SKIPPED);
		assertThat(JavaProjects.command(3, "await-switch", temp.toString())).isEmpty(); // (no repository there)
	}

	/**
	 * {@code await-switch} sent right after a repository's project appears (an import, an IDE's start): the switch
	 * manager tracks the repository in a job of its own, and the command waits for it instead of answering that no
	 * project belongs to the repository (seen in the soak, at the first command of a session: exit 3).
	 */
	@Test
	void awaitSwitchRightAfterAProjectAppearsWaitsForTheRepositoryToBeTracked() throws Exception {
		try (GitFixture other = GitFixture.create(temp.resolve("other"), MAIN)) {
			IProject otherProject = other.project("");
			try {
				assertThat(JavaProjects.command(0, "await-switch", other.workTree.toString())).contains("switch handled");
			} finally {
				SwitchHarness.awaitQuiet();
				otherProject.delete(false, true, null);
			}
		}
	}

	/**
	 * A branch without one of the repository's projects: a terminal checkout deletes that project's folder (its
	 * .project, tracked, with it) under the running IDE. The switch takes the removed project out of the workspace, as
	 * EGit does after its checkouts, so that no workspace save writes a description back into the work tree (left in
	 * the workspace, core.resources "repairs" the missing description at its next snapshot or save: an untracked
	 * .project that blocks the checkout back). The other project is switched as usual — to the branch, back, and to the
	 * branch again, restoring its stored state. Imported again on the way back, the project is removed again by the
	 * next switch.
	 */
	@Test
	void aCheckoutThatRemovesAProjectTakesItOutOfTheWorkspaceAndSwitchesTheOthers() throws Exception {
		try (GitFixture two = GitFixture.create(temp.resolve("two-projects"),
				files("one/src/a.txt", "alpha\n", "two/src/b.txt", "bravo\nERROR in b\n"))) {
			IProject one = two.project("one");
			IProject removed = two.project("two");
			IWorkspace workspace = ResourcesPlugin.getWorkspace();
			Path description = two.workTree.resolve("two/.project");
			try {
				two.cli("add", "-f", "one/.project", "two/.project");
				two.cli("-c", "user.name=test", "-c", "user.email=test@branchstate.invalid", "commit", "-q", "-m",
						"projects");
				SwitchHarness.awaitQuiet();
				two.git.branchCreate().setName("without-two").call();
				String withoutTwo = two.commitOnBranchElsewhere("without-two",
						files("two/.project", null, "two/src/b.txt", null, "one/src/a.txt", "alpha without two\n"));
				harness.takeEvents(two.gitDir());

				List<StateEvent> events = new ArrayList<>();
				for (String branch : List.of("without-two", "main", "without-two")) {
					RecordingBuilder.reset(one);
					two.cli("checkout", "-q", branch);
					// the IDE's refresh after a terminal checkout: its PRE_REFRESH schedules the switch job if the HEAD
					// watch has not yet (its event comes on its own thread, at no set time), and the wait joins it
					one.refreshLocal(IResource.DEPTH_INFINITE, null);
					SwitchHarness.awaitQuiet();
					assertThat(removed.exists()).as("project two in the workspace after the checkout of %s", branch)
							.isFalse();
					if (branch.equals("main")) {
						// File > Import > Existing Projects, as the user does when a branch brings a project back
						IProjectDescription loaded = workspace.loadProjectDescription(IPath.fromPath(description));
						loaded.setLocation(IPath.fromPath(description.getParent()));
						removed.create(loaded, null);
						removed.open(null);
					} else {
						workspace.save(true, null); // a full save "repairs" an open project's missing description
						assertThat(description).as("the removed project's description after a save").doesNotExist();
					}
					SwitchHarness.awaitQuiet();
					events.addAll(harness.takeEvents(two.gitDir()));
				}
				assertThat(events).as("the switches' events: %s", events).noneMatch(e -> e.kind() == Kind.FAILED)
						.anyMatch(e -> e.kind() == Kind.RESTORED && e.commitId().equals(withoutTwo));
				assertThat(RecordingBuilder.record(one)).as("what the builder redid after the last restore").isEmpty();
				assertThat(description).as("the removed project's description at the end").doesNotExist();
				assertThat(((StateService) harness.service).projectsOf(two.gitDir())).containsExactly(one);
			} finally {
				SwitchHarness.awaitQuiet();
				if (removed.exists()) {
					removed.delete(false, true, null);
				}
				one.delete(false, true, null);
			}
		}
	}

	/**
	 * A description Git does not track (a repository that ignores .project, as where m2e writes them) deleted under the
	 * running IDE — by {@code git clean -fdx}, say — is Eclipse's to write again: a switch after it leaves the project
	 * in the workspace.
	 */
	@Test
	void aSwitchLeavesAProjectWhoseUntrackedDescriptionIsGone() throws Exception {
		try (GitFixture ignored = GitFixture.create(temp.resolve("ignored-description"),
				files("one/src/a.txt", "alpha\n"))) {
			IProject one = ignored.project("one");
			try {
				SwitchHarness.awaitQuiet();
				ignored.git.branchCreate().setName("other").call();
				ignored.commitOnBranchElsewhere("other", files("one/src/a.txt", "alpha on other\n"));
				Files.delete(ignored.workTree.resolve("one/.project")); // (git-ignored: the fixture's .gitignore)
				harness.takeEvents(ignored.gitDir());
				ignored.cli("checkout", "-q", "other");
				harness.awaitEvent(ignored.gitDir(), e -> e.kind() == Kind.RESTORED || e.kind() == Kind.SKIPPED
						|| e.kind() == Kind.FAILED); // the switch has been handled (by the HEAD watch)
				SwitchHarness.awaitQuiet();
				assertThat(one.exists()).as("the project whose untracked description is gone, after the switch").isTrue();
			} finally {
				SwitchHarness.awaitQuiet();
				one.delete(false, true, null);
			}
		}
	}

	@Test
	void aCommitOnTheSameBranchIsNotASwitchAndItsBuiltDataIsSavedForTheNewCommit() throws Exception {
		String second = repo.commit("more", files("src/a.txt", "alpha 2\n"));
		project.refreshLocal(IResource.DEPTH_INFINITE, null);
		SwitchHarness.awaitQuiet();
		List<StateEvent> events = harness.takeEvents(repo.gitDir());
		assertThat(events).noneMatch(e -> e.kind() == Kind.SAVED || e.kind() == Kind.RESTORED);
		assertThat(events).filteredOn(e -> e.kind() == Kind.SKIPPED).singleElement()
				.satisfies(e -> assertThat(e.message()).contains("within branch main"));
		assertThat(RecordingBuilder.record(project)).containsExactly("compile src/a.txt");

		checkoutInIde("B");
		assertThat(harness.takeEvents(repo.gitDir())).filteredOn(e -> e.kind() == Kind.SAVED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(second));
	}

	/**
	 * A {@code git reset --hard} in a terminal moves the branch checked out, not HEAD. The stored state of the commit
	 * entered is restored before any build (automatic building off), since it leaves the builders less to redo than
	 * the derived data on disk. (The move is seen by the watch of the branches, or by JGit when anything reads the
	 * refs: with the watch of the branches removed, this test still passes.)
	 */
	@Test
	void aResetInATerminalToACommitWithAStoredStateRestoresItBeforeAnyBuild() throws Exception {
		checkoutInIde("B");
		Map<String, byte[]> derivedB = GitFixture.derived(project);
		checkoutInIde("main");
		harness.autoBuild(false);
		harness.takeEvents(repo.gitDir());
		RecordingBuilder.reset(project);

		repo.cli("reset", "-q", "--hard", commitB);
		StateEvent handled = harness.awaitEvent(repo.gitDir(),
				e -> commitB.equals(e.commitId()) && e.kind() != Kind.SAVED);
		SwitchHarness.awaitQuiet();
		assertThat(handled.kind()).as(handled.message()).isEqualTo(Kind.RESTORED);
		assertThat(RecordingBuilder.record(project)).as("no build ran").isEmpty();
		assertSameBytes(GitFixture.derived(project), derivedB);
		project.build(IncrementalProjectBuilder.INCREMENTAL_BUILD, null);
		assertThat(RecordingBuilder.record(project)).as("nothing left to rebuild").isEmpty();
	}

	@Test
	void afterAResetWithoutABuildTheDerivedDataIsNotSavedUnderAWrongCommit() throws Exception {
		harness.autoBuild(false);
		repo.git.reset().setMode(org.eclipse.jgit.api.ResetCommand.ResetType.HARD).setRef(commitB).call();
		SwitchHarness.awaitQuiet();
		assertThat(harness.takeEvents(repo.gitDir())).anyMatch(e -> e.message().contains("within branch main"));

		checkoutInIde("B");
		List<StateEvent> events = harness.takeEvents(repo.gitDir());
		assertThat(events).noneMatch(e -> e.kind() == Kind.SAVED);
		assertThat(events).anyMatch(
				e -> e.kind() == Kind.SKIPPED && e.message().contains("does not reflect a known commit"));
	}

	@Test
	void aDetachedHeadIsRestoredButNotSaved() throws Exception {
		Map<String, byte[]> derivedA = GitFixture.derived(project);
		checkoutInIde(commitB);
		assertThat(harness.takeEvents(repo.gitDir())).filteredOn(e -> e.kind() == Kind.SAVED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitA));
		RecordingBuilder.reset(project);

		checkoutInIde("main");
		List<StateEvent> events = harness.takeEvents(repo.gitDir());
		assertThat(events).noneMatch(e -> e.kind() == Kind.SAVED);
		assertThat(events).filteredOn(e -> e.kind() == Kind.SKIPPED && e.message().contains("detached")).hasSize(1);
		assertThat(events).filteredOn(e -> e.kind() == Kind.RESTORED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitA));
		assertThat(RecordingBuilder.record(project)).isEmpty();
		assertSameBytes(GitFixture.derived(project), derivedA);
	}

	@Test
	void theHeadlessSwitchCommandChecksOutAndWaitsForTheSwitch() throws Exception {
		var out = new java.io.ByteArrayOutputStream();
		var err = new java.io.ByteArrayOutputStream();
		Integer exit = SwitchCommand.run(List.of(repo.workTree.toString(), "B"), new java.io.PrintStream(out, true),
				new java.io.PrintStream(err, true));
		assertThat(exit).as(err.toString()).isEqualTo(0);
		assertThat(repo.git.getRepository().getBranch()).isEqualTo("B");
		assertThat(out.toString()).contains("saved " + commitA.substring(0, 10) + " main").contains("checkout B")
				.contains("switch handled").contains("refresh and build");
		assertThat(RecordingBuilder.record(project)).containsExactlyInAnyOrder("compile src/a.txt",
				"remove src/c.txt", "compile src/d.txt");
		RecordingBuilder.reset(project);

		out.reset();
		exit = SwitchCommand.run(List.of(repo.workTree.toString(), "main"), new java.io.PrintStream(out, true),
				new java.io.PrintStream(err, true));
		assertThat(exit).as(err.toString()).isEqualTo(0);
		assertThat(out.toString()).contains("restored " + commitA.substring(0, 10));
		assertThat(RecordingBuilder.record(project)).isEmpty();

		// a clean build alone, on the branch checked out (the soak's Project > Clean after JDT's own failure)
		out.reset();
		exit = SwitchCommand.run(List.of(repo.workTree.toString(), SwitchCommand.CLEAN_BUILD),
				new java.io.PrintStream(out, true), new java.io.PrintStream(err, true));
		assertThat(exit).as(err.toString()).isEqualTo(0);
		assertThat(out.toString()).contains("result clean_build=1");
		assertThat(repo.git.getRepository().getBranch()).isEqualTo("main");
		assertThat(RecordingBuilder.record(project)).contains("compile src/a.txt");
		RecordingBuilder.reset(project);

		assertThat(SwitchCommand.run(List.of(temp.resolve("nowhere").toString(), "B"), new java.io.PrintStream(out),
				new java.io.PrintStream(err))).isEqualTo(1);
		assertThat(SwitchCommand.run(List.of("only-one"), new java.io.PrintStream(out), new java.io.PrintStream(err)))
				.isEqualTo(2);
	}

	@Test
	void aCorruptStateFailsSafeWithOneReportAndANormalRebuild() throws Exception {
		checkoutInIde("B");
		checkoutInIde("main");
		checkoutInIde("B");
		StateInfo stateA = harness.service.states(repo.gitDir()).stream().filter(s -> s.commitId().equals(commitA))
				.findFirst().orElseThrow();
		try (FileChannel channel = FileChannel.open(stateA.archive(), StandardOpenOption.WRITE,
				StandardOpenOption.READ)) {
			ByteBuffer middle = ByteBuffer.allocate(64);
			long at = channel.size() / 3;
			channel.read(middle, at);
			for (int i = 0; i < middle.capacity(); i++) {
				middle.put(i, (byte) ~middle.get(i));
			}
			channel.write(middle.flip(), at);
		}
		Map<String, byte[]> derivedB = GitFixture.derived(project);
		RecordingBuilder.reset(project);
		harness.takeEvents(repo.gitDir());
		List<IStatus> errors = new CopyOnWriteArrayList<>();
		ILogListener log = (status, plugin) -> {
			if (status.getSeverity() == IStatus.ERROR) {
				errors.add(status);
			}
		};
		Platform.addLogListener(log);
		try {
			checkoutInIde("main");
		} finally {
			Platform.removeLogListener(log);
		}

		List<StateEvent> events = harness.takeEvents(repo.gitDir());
		assertThat(events).filteredOn(e -> e.kind() == Kind.FAILED).hasSize(1);
		assertThat(events).noneMatch(e -> e.kind() == Kind.RESTORED);
		assertThat(errors).hasSize(1);
		assertThat(RecordingBuilder.record(project)).as("the builders rebuilt what the checkout changed")
				.containsExactlyInAnyOrder("compile src/a.txt", "compile src/c.txt", "remove src/d.txt");
		Map<String, byte[]> now = GitFixture.derived(project);
		assertThat(now.keySet()).containsExactlyInAnyOrder("bin/a.txt.out", "bin/b.txt.out", "bin/c.txt.out",
				"bin/sub/s.txt.out");
		for (String untouched : List.of("bin/b.txt.out", "bin/sub/s.txt.out")) {
			assertThat(now.get(untouched)).as("not partially restored: " + untouched).isEqualTo(derivedB.get(untouched));
		}
		assertThat(new String(now.get("bin/c.txt.out"))).contains("CHARLIE");
		assertThat(GitFixture.markers(project)).hasSize(2).anyMatch(m -> m.startsWith("src/c.txt"));
	}

	@Test
	void automaticSwitchingOffAndBranchPatternsAreHonoured() throws Exception {
		IEclipsePreferences preferences = InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE);
		try {
			preferences.putBoolean(BranchstatePreferences.AUTO_SWITCH, false);
			checkoutInIde("B");
			List<StateEvent> off = harness.takeEvents(repo.gitDir());
			assertThat(off).noneMatch(e -> e.kind() == Kind.SAVED || e.kind() == Kind.RESTORED);
			assertThat(off).anyMatch(e -> e.kind() == Kind.SKIPPED && e.message().contains("automatic switching is off"));

			preferences.remove(BranchstatePreferences.AUTO_SWITCH);
			preferences.put(BranchstatePreferences.BRANCH_PATTERNS, "main, release/*");
			checkoutInIde("main");
			List<StateEvent> toMain = harness.takeEvents(repo.gitDir());
			assertThat(toMain).noneMatch(e -> e.kind() == Kind.SAVED);
			assertThat(toMain).filteredOn(e -> e.kind() == Kind.SKIPPED && e.message().contains("matches none"))
					.hasSize(1);

			checkoutInIde("B");
			assertThat(harness.takeEvents(repo.gitDir())).filteredOn(e -> e.kind() == Kind.SAVED).singleElement()
					.satisfies(e -> assertThat(e.branch()).isEqualTo("main"));
		} finally {
			preferences.remove(BranchstatePreferences.AUTO_SWITCH);
			preferences.remove(BranchstatePreferences.BRANCH_PATTERNS);
		}
	}

	@Test
	void afterASwitchWithAutomaticSwitchingOffNothingIsSavedUnderTheCommitLeft() throws Exception {
		harness.autoBuild(false);
		IEclipsePreferences preferences = InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE);
		try {
			preferences.putBoolean(BranchstatePreferences.AUTO_SWITCH, false);
			checkoutInIde("B");
		} finally {
			preferences.remove(BranchstatePreferences.AUTO_SWITCH);
		}
		harness.takeEvents(repo.gitDir());
		// derived data that follows the checkout at once (an index) is B's now, class files are A's until a build:
		// neither the shutdown save nor the next switch may store it as the state of A
		harness.workspace.save(true, null);
		assertThat(harness.takeEvents(repo.gitDir())).noneMatch(e -> e.kind() == Kind.SAVED);
		checkoutInIde("main");
		assertThat(harness.takeEvents(repo.gitDir())).noneMatch(e -> e.kind() == Kind.SAVED);
		assertThat(harness.service.states(repo.gitDir())).isEmpty();

		// once a build has run, the derived data is B's and is saved as such
		checkoutInIde("B");
		harness.workspace.build(IncrementalProjectBuilder.INCREMENTAL_BUILD, null);
		SwitchHarness.awaitQuiet();
		harness.takeEvents(repo.gitDir());
		checkoutInIde("main");
		assertThat(harness.takeEvents(repo.gitDir())).filteredOn(e -> e.kind() == Kind.SAVED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitB));
	}

	@Test
	void aStateIsSavedAgainOnlyWhenABuildChangedTheDerivedData() throws Exception {
		harness.autoBuild(false);
		checkoutInIde("B");
		harness.workspace.build(IncrementalProjectBuilder.INCREMENTAL_BUILD, null);
		checkoutInIde("main"); // saves B, restores A
		harness.workspace.build(IncrementalProjectBuilder.INCREMENTAL_BUILD, null);
		SwitchHarness.awaitQuiet();
		harness.takeEvents(repo.gitDir());
		RecordingBuilder.reset(project);

		checkoutInIde("B");
		List<StateEvent> events = harness.takeEvents(repo.gitDir());
		assertThat(RecordingBuilder.record(project)).isEmpty();
		assertThat(events).as("A was restored and nothing was built since: its state is identical")
				.noneMatch(e -> e.kind() == Kind.SAVED);
		assertThat(events).filteredOn(e -> e.kind() == Kind.RESTORED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitB));

		repo.commit("edit on B", files("src/a.txt", "alpha edited on B\n"));
		project.refreshLocal(IResource.DEPTH_INFINITE, null);
		harness.workspace.build(IncrementalProjectBuilder.INCREMENTAL_BUILD, null);
		assertThat(RecordingBuilder.record(project)).containsExactly("compile src/a.txt");
		String editedB = repo.git.getRepository().resolve("HEAD").name();
		harness.takeEvents(repo.gitDir());
		checkoutInIde("main");
		assertThat(harness.takeEvents(repo.gitDir())).filteredOn(e -> e.kind() == Kind.SAVED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(editedB));
	}

	/**
	 * PDE's manifest checker removes its markers and adds the same ones again at every build that meets the manifest
	 * (the committers' benchmark: 10 of 40 bundles after each restore). Such a build changes nothing a state holds: the
	 * restored state stays the one on disk, and leaving the branch saves nothing. A build whose markers say something
	 * else is a change: the state is saved again.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "", "says something else" })
	void aBuildThatAddsTheSameMarkersAgainLeavesTheRestoredStateStored(String validation) throws Exception {
		harness.autoBuild(false);
		checkoutInIde("B");
		harness.workspace.build(IncrementalProjectBuilder.INCREMENTAL_BUILD, null);
		checkoutInIde("main"); // saves B, restores A
		harness.takeEvents(repo.gitDir());
		RecordingBuilder.reset(project);
		Set<Long> restoredIds = markerIds();
		assertThat(restoredIds).isNotEmpty();
		RecordingBuilder.validation = validation;
		harness.workspace.build(IncrementalProjectBuilder.INCREMENTAL_BUILD, null);
		SwitchHarness.awaitQuiet();
		assertThat(RecordingBuilder.record(project)).as("nothing compiled after the exact restore").isEmpty();
		assertThat(markerIds()).as("the build removed the markers and added them again").doesNotContainAnyElementsOf(
				restoredIds).hasSameSizeAs(restoredIds);

		leaveRestoredAForB(!validation.isEmpty(), validation.isEmpty()
				? "the markers were added again unchanged: A's state is the one restored"
				: "the build changed the markers: A's state is saved again");
	}

	/**
	 * A builder may change a marker in place ({@code IMarker.setAttribute}): the marker keeps its id, and the build's
	 * delta still calls it the marker the restore added ("added, then changed" is "added"). What it says changed: the
	 * state is saved again. A change in place that leaves the marker saying the same is no change. With auto-build on,
	 * as users have it: the build after the restore is the auto-build's, and the next one sees nothing of the change.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "", "says something else" })
	void aBuildThatChangesARestoredMarkerInPlaceIsAChangeOfTheRestoredState(String validation) throws Exception {
		checkoutInIde("B"); // saves A, builds B
		harness.takeEvents(repo.gitDir());
		RecordingBuilder.reset(project);
		RecordingBuilder.validation = validation;
		RecordingBuilder.validatesInPlace = true;
		checkoutInIde("main"); // saves B, restores A with its markers; the auto-build validates them in place
		assertThat(harness.takeEvents(repo.gitDir())).filteredOn(e -> e.kind() == Kind.RESTORED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitA));
		assertThat(RecordingBuilder.record(project)).as("nothing compiled after the exact restore").isEmpty();
		assertThat(project.findMarkers(RecordingBuilder.MARKER, true, IResource.DEPTH_INFINITE))
				.as("the restored markers, validated in place").isNotEmpty()
				.allSatisfy(m -> assertThat(m.getAttribute("validation")).isEqualTo(validation.isEmpty() ? null : validation));

		leaveRestoredAForB(!validation.isEmpty(), validation.isEmpty()
				? "the markers say what they said: A's state is the one restored"
				: "the build changed what the markers say: A's state is saved again");
	}

	/**
	 * Checks B out after A's state was restored and built: A's state is saved again only when the build changed it;
	 * B's state is restored.
	 */
	private void leaveRestoredAForB(boolean changedByTheBuild, String why) throws Exception {
		checkoutInIde("B");
		List<StateEvent> events = harness.takeEvents(repo.gitDir());
		if (changedByTheBuild) {
			assertThat(events).as(why).filteredOn(e -> e.kind() == Kind.SAVED).singleElement()
					.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitA));
		} else {
			assertThat(events).as(why).noneMatch(e -> e.kind() == Kind.SAVED);
		}
		assertThat(events).filteredOn(e -> e.kind() == Kind.RESTORED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitB));
	}

	/**
	 * While builders run, the workspace lock is free: an operation another thread runs across the end of a build
	 * (a job's workspace runnable, say) defers the build's POST_CHANGE to that operation's end, in that thread. The
	 * build's output must still count as the branch's derived data, or the next switch neither saves it nor restores
	 * the state of the branch entered ("already is the nearest stored state").
	 */
	@Test
	void aBuildIsSeenWhenAnotherThreadTellsItsChanges() throws Exception {
		harness.autoBuild(false);
		checkoutInIde("B"); // saves A; A's state is the nearest to B and already on disk: nothing restored
		harness.takeEvents(repo.gitDir());
		RecordingBuilder.reset(project);

		CountDownLatch inside = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Thread other = new Thread(() -> {
			try {
				harness.workspace.run(monitor -> {
					inside.countDown();
					try {
						release.await();
					} catch (InterruptedException e) {
						Thread.currentThread().interrupt();
					}
				}, null, IWorkspace.AVOID_UPDATE, null);
			} catch (CoreException e) {
				throw new IllegalStateException(e);
			}
		}, "another operation");
		other.start();
		assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();
		try {
			harness.workspace.build(IncrementalProjectBuilder.INCREMENTAL_BUILD, null);
		} finally {
			release.countDown();
			other.join(30_000);
		}
		assertThat(RecordingBuilder.record(project)).containsExactlyInAnyOrder("compile src/a.txt",
				"remove src/c.txt", "compile src/d.txt");
		Map<String, byte[]> derivedB = GitFixture.derived(project);

		checkoutInIde("main");
		List<StateEvent> events = harness.takeEvents(repo.gitDir());
		assertThat(events).filteredOn(e -> e.kind() == Kind.SAVED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitB));
		assertThat(events).filteredOn(e -> e.kind() == Kind.RESTORED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitA));
		checkoutInIde("B");
		assertSameBytes(GitFixture.derived(project), derivedB);
	}

	@Test
	void aStateSavedByTheSaveStateCommandIsNotSavedAgainOnTheNextSwitch() throws Exception {
		harness.service.save(repo.gitDir(), null); // what the UI's Save State command does
		assertThat(harness.takeEvents(repo.gitDir())).filteredOn(e -> e.kind() == Kind.SAVED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitA));

		checkoutInIde("B");
		List<StateEvent> events = harness.takeEvents(repo.gitDir());
		assertThat(events).noneMatch(e -> e.kind() == Kind.SAVED);
		assertThat(RecordingBuilder.record(project)).as("events: %s", events).containsExactlyInAnyOrder("compile src/a.txt",
				"remove src/c.txt", "compile src/d.txt");
	}

	@Test
	void aStateSavedForTheCheckedOutCommitIsWhatTheNextSwitchTakesTheDiskFor() throws Exception {
		harness.autoBuild(false);
		Map<String, byte[]> derivedA = GitFixture.derived(project);
		checkoutInIde("B"); // no state of B: nothing restored, and no build: A's output is still on disk
		harness.takeEvents(repo.gitDir());

		// a tool outside Eclipse adds output for B, then the user runs Save State: it builds first (automatic
		// building is off), then saves
		Files.writeString(project.getLocation().toPath().resolve("bin/by-tool.out"), "built for B\n");
		project.refreshLocal(IResource.DEPTH_INFINITE, null);
		assertThatThrownBy(() -> harness.service.save(repo.gitDir(), null)).as("not built yet: nothing saved")
				.isInstanceOfSatisfying(CoreException.class, e -> assertThat(e.getStatus().getMessage())
						.contains("is not saved: builder " + RecordingBuilder.ID));
		harness.service.awaitBuild(repo.gitDir(), null);
		harness.service.save(repo.gitDir(), null);
		assertThat(harness.takeEvents(repo.gitDir())).filteredOn(e -> e.kind() == Kind.SAVED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitB));

		checkoutInIde("main");
		assertThat(harness.takeEvents(repo.gitDir())).filteredOn(e -> e.kind() == Kind.RESTORED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitA));
		assertSameBytes(GitFixture.derived(project), derivedA);
	}

	@Test
	void aFullWorkspaceSaveSavesTheStateOfEveryRepository() throws Exception {
		assertThat(harness.service.states(repo.gitDir())).isEmpty();
		harness.workspace.save(true, null);
		assertThat(harness.takeEvents(repo.gitDir())).filteredOn(e -> e.kind() == Kind.SAVED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(commitA));
		assertThat(harness.service.states(repo.gitDir())).extracting(StateInfo::commitId).containsExactly(commitA);

		harness.workspace.save(true, null);
		assertThat(harness.takeEvents(repo.gitDir())).as("an identical state is not saved again").isEmpty();
	}

	private Set<Long> markerIds() throws CoreException {
		Set<Long> ids = new HashSet<>();
		for (IMarker marker : project.findMarkers(RecordingBuilder.MARKER, true, IResource.DEPTH_INFINITE)) {
			ids.add(Long.valueOf(marker.getId()));
		}
		return ids;
	}

	private void checkoutInIde(String name) throws Exception {
		repo.git.checkout().setName(name).call();
		project.refreshLocal(IResource.DEPTH_INFINITE, null);
		SwitchHarness.awaitQuiet();
	}

	static void assertSameBytes(Map<String, byte[]> actual, Map<String, byte[]> expected) {
		assertThat(actual.keySet()).isEqualTo(expected.keySet());
		expected.forEach((path, bytes) -> assertThat(actual.get(path)).as(path).isEqualTo(bytes));
	}

	static Map<String, String> files(String... pathsAndContents) {
		Map<String, String> files = new LinkedHashMap<>();
		for (int i = 0; i < pathsAndContents.length; i += 2) {
			files.put(pathsAndContents[i], pathsAndContents[i + 1]);
		}
		return files;
	}
}
