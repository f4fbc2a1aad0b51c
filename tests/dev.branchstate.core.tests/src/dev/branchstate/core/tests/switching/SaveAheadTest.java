package dev.branchstate.core.tests.switching;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.jdt.internal.core.JavaModelManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateEvent.Kind;
import dev.branchstate.core.internal.switching.SaveAheadJob;

/**
 * The state of a finished build is saved in the background once the IDE is quiet (JDT builds a Java project, the
 * checkouts are made in the IDE): leaving the branch then saves nothing, and coming back restores what was saved ahead
 * — an uncommitted edit included — equal to a clean build. A user who keeps editing and building pays one save ahead
 * per interval at most.
 */
class SaveAheadTest {

	private static final String QUIET_MS = "dev.branchstate.saveAhead.quietMs";
	private static final String INTERVAL_MS = "dev.branchstate.saveAhead.intervalMs";

	@TempDir
	Path temp;

	private SwitchHarness harness;
	private JavaRepository repo;
	private IProject project;
	private String mainCommit;

	@BeforeEach
	void setUp() throws Exception {
		System.setProperty(QUIET_MS, "200");
		InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE).putBoolean(BranchstatePreferences.SAVE_AHEAD, true);
		harness = new SwitchHarness();
		Map<String, String> main = new LinkedHashMap<>();
		for (int i = 0; i < 12; i++) {
			main.put("src/p/C" + i + ".java", "package p;\npublic class C" + i + " {\n\tpublic int v() { return " + i
					+ "; }\n}\n");
		}
		repo = JavaRepository.create(temp.resolve("repo"), main);
		mainCommit = repo.git.getRepository().resolve("HEAD").name();
		repo.branch("feat", Map.of("src/p/C5.java", "package p;\npublic class C5 {\n\tpublic long v() { return 5L; }\n}\n",
				"src/q/F.java", "package q;\npublic class F extends p.C5 {\n}\n"));
		repo.git.checkout().setName("main").call();
	}

	@AfterEach
	void tearDown() throws Exception {
		System.clearProperty(QUIET_MS);
		System.clearProperty(INTERVAL_MS);
		InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE).remove(BranchstatePreferences.SAVE_AHEAD);
		Job.getJobManager().cancel(SaveAheadJob.FAMILY);
		repo.discard(harness, project);
		harness.close();
	}

	@Test
	void leavingABranchWhoseStateWasSavedAheadSavesNothing() throws Exception {
		System.setProperty(INTERVAL_MS, "0");
		importAndBuild();
		harness.awaitEvent(repo.gitDir(), e -> e.kind() == Kind.SAVED && mainCommit.equals(e.commitId()));
		Job.getJobManager().join(SaveAheadJob.FAMILY, null); // completed, once JDT's indexer is done
		harness.takeEvents(repo.gitDir());

		// an edit, not committed: built, then saved ahead with it
		edit("src/p/C1.java", "package p;\npublic class C1 {\n\tpublic int v() { return 100; }\n}\n");
		harness.awaitEvent(repo.gitDir(), e -> e.kind() == Kind.SAVED && mainCommit.equals(e.commitId()));
		Job.getJobManager().join(SaveAheadJob.FAMILY, null);
		assertThat(harness.service.states(repo.gitDir())).as("the state saved ahead, with the edit")
				.anySatisfy(s -> assertThat(s.dirtyPaths()).contains("src/p/C1.java"));
		harness.takeEvents(repo.gitDir());

		checkout("feat"); // the edit comes along
		assertThat(harness.takeEvents(repo.gitDir())).as("the switch to feat")
				.noneMatch(e -> e.kind() == Kind.SAVED && mainCommit.equals(e.commitId()))
				.anyMatch(e -> e.kind() == Kind.SKIPPED); // no state of feat yet: JDT builds it
		Job.getJobManager().join(SaveAheadJob.FAMILY, null);

		JdtBuilds.takeCompiled();
		checkout("main");
		List<StateEvent> back = harness.takeEvents(repo.gitDir());
		assertThat(back).as("the switch back to main").anyMatch(e -> e.kind() == Kind.RESTORED
				&& mainCommit.equals(e.commitId())).noneMatch(e -> e.kind() == Kind.FAILED);
		assertThat(JdtBuilds.takeCompiled()).as("units JDT compiled after the exact restore").isEmpty();
		assertThat(JavaRepository.Build.of(project).differencesFrom(repo.cleanBuild(temp.resolve("clean"))))
				.as("main with the edit, restored from the state saved ahead, against a clean build").isEmpty();
	}

	@Test
	void aUserWhoKeepsEditingAndBuildingPaysOneSaveAheadPerInterval() throws Exception {
		System.setProperty(INTERVAL_MS, String.valueOf(3_600_000));
		importAndBuild();
		harness.awaitEvent(repo.gitDir(), e -> e.kind() == Kind.SAVED && mainCommit.equals(e.commitId()));
		harness.takeEvents(repo.gitDir());
		for (int round = 0; round < 5; round++) {
			edit("src/p/C1.java", "package p;\npublic class C1 {\n\tpublic int v() { return " + (200 + round)
					+ "; }\n}\n");
			Thread.sleep(400); // longer than the quiet time: only the interval holds the save back
		}
		assertThat(harness.takeEvents(repo.gitDir())).as("saves while the user edits and builds, within the interval")
				.noneMatch(e -> e.kind() == Kind.SAVED);
		assertThat(Job.getJobManager().find(SaveAheadJob.FAMILY)).as("the next save ahead, waiting for the interval")
				.allMatch(job -> job.getState() == Job.SLEEPING).isNotEmpty();
	}

	private void importAndBuild() throws Exception {
		harness.autoBuild(true);
		project = repo.importProject();
		harness.manager().track();
		SwitchHarness.awaitQuiet();
		long deadline = System.currentTimeMillis() + 120_000;
		while (JavaModelManager.getIndexManager().awaitingJobsCount() > 0) {
			assertThat(System.currentTimeMillis()).as("JDT's indexer idle within 2 minutes").isLessThan(deadline);
			Thread.sleep(20);
		}
	}

	private void edit(String path, String content) throws Exception {
		IFile file = project.getFile(path);
		file.setContents(new ByteArrayInputStream(content.getBytes(StandardCharsets.UTF_8)), IResource.FORCE, null);
		SwitchHarness.awaitQuiet(); // the auto-build
	}

	private void checkout(String branch) throws Exception {
		repo.git.checkout().setName(branch).call();
		project.refreshLocal(IResource.DEPTH_INFINITE, null);
		SwitchHarness.awaitQuiet();
	}
}
