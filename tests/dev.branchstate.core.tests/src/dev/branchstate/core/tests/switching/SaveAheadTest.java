package dev.branchstate.core.tests.switching;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.jdt.internal.core.JavaModelManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.core.IRestoreContext;
import dev.branchstate.core.ISaveContext;
import dev.branchstate.core.IStateContributor;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateEvent.Kind;
import dev.branchstate.core.internal.service.StateService;
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
	private IProject library;
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
		if (library != null && library.exists()) {
			library.delete(false, true, null);
		}
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

	/**
	 * A refresh that begins while a save ahead checks the build neither waits for ever nor loses the save. core.resources
	 * holds the workspace while a refresh's listeners run, and Branchstate's listener waits for the repository's lock;
	 * the save ahead held that lock and then waited for the workspace to check the next project's build (soak seed 11,
	 * step 845 of the 1,000-step run: the IDE hung). Now the save ahead holds the workspace first, gives way to the
	 * refresh, and saves after it.
	 */
	@Test
	void aRefreshWhileASaveAheadChecksTheBuildEndsAndTheStateIsSavedAfterIt() throws Exception {
		System.setProperty(INTERVAL_MS, "0");
		String head = repo.commit("a second project", libraryProject());
		importAndBuild();
		harness.awaitEvent(repo.gitDir(), e -> e.kind() == Kind.SAVED && head.equals(e.commitId()));
		Job.getJobManager().join(SaveAheadJob.FAMILY, null);
		harness.takeEvents(repo.gitDir());

		// the next save ahead is held in its check of the first project's build until the refresh waits
		CountDownLatch inCheck = new CountDownLatch(1);
		AtomicReference<Thread> refreshing = new AtomicReference<>();
		AtomicBoolean held = new AtomicBoolean();
		try (AutoCloseable hold = ((StateService) harness.service).contributors().register("test.holdsTheCheck",
				"holds a save ahead's check", 1, new HoldingContributor(held, inCheck, refreshing))) {
			System.setProperty(QUIET_MS, String.valueOf(3_600_000)); // the save ahead waits to be woken
			edit("src/p/C1.java", "package p;\npublic class C1 {\n\tpublic int v() { return 300; }\n}\n");
			Job saveAhead = Job.getJobManager().find(SaveAheadJob.FAMILY)[0];
			saveAhead.wakeUp();
			assertThat(inCheck.await(60, TimeUnit.SECONDS)).as("the save ahead in its check").isTrue();

			Thread refresh = new Thread(() -> {
				try {
					project.refreshLocal(IResource.DEPTH_INFINITE, null);
				} catch (CoreException e) {
					throw new IllegalStateException(e);
				}
			}, "refresh during a save ahead");
			refresh.setDaemon(true); // (a deadlocked one must not keep the test JVM)
			refreshing.set(refresh);
			refresh.start();
			refresh.join(120_000);
			assertThat(refresh.isAlive()).as("the refresh still waiting, two minutes later (a deadlock)").isFalse();

			harness.awaitEvent(repo.gitDir(), e -> e.kind() == Kind.SAVED && head.equals(e.commitId()));
			Job.getJobManager().join(SaveAheadJob.FAMILY, null);
			assertThat(held).as("the check held").isTrue();
			assertThat(harness.service.states(repo.gitDir())).as("the state saved ahead after the refresh, with the edit")
					.anySatisfy(s -> assertThat(s.dirtyPaths()).contains("src/p/C1.java"));
		}
	}

	/**
	 * Holds the first build check of a save ahead until the refresh waits: for the save ahead's rule (the job
	 * manager says the save ahead blocks it), or for the repository's lock in Branchstate's refresh listener.
	 */
	private record HoldingContributor(AtomicBoolean held, CountDownLatch inCheck, AtomicReference<Thread> refreshing)
			implements IStateContributor {

		@Override
		public int version() {
			return 1;
		}

		@Override
		public boolean appliesTo(IProject project) {
			return project.getName().startsWith("java") || project.getName().startsWith("lib");
		}

		@Override
		public Optional<String> whyNotBuilt(IProject project) {
			Job job = Job.getJobManager().currentJob();
			if (!(job instanceof SaveAheadJob) || !held.compareAndSet(false, true)) {
				return Optional.empty();
			}
			inCheck.countDown();
			long deadline = System.currentTimeMillis() + 60_000;
			while (!job.isBlocking() && !waitsInTheRefreshListener(refreshing.get())
					&& System.currentTimeMillis() < deadline) {
				try {
					Thread.sleep(10);
				} catch (InterruptedException e) {
					Thread.currentThread().interrupt();
					break;
				}
			}
			return Optional.empty();
		}

		private static boolean waitsInTheRefreshListener(Thread thread) {
			return thread != null && thread.getState() == Thread.State.WAITING && Arrays.stream(thread.getStackTrace())
					.anyMatch(f -> f.getMethodName().equals("beforeRefresh")
							&& f.getClassName().endsWith(".SwitchManager"));
		}

		@Override
		public void save(ISaveContext context, IProgressMonitor monitor) {
			// nothing to keep
		}

		@Override
		public void restore(IRestoreContext context, IProgressMonitor monitor) {
			// nothing to put back
		}
	}

	/** A second Java project in the repository's folder {@code lib}: the save ahead checks two projects' builds. */
	private static Map<String, String> libraryProject() {
		Map<String, String> files = new LinkedHashMap<>();
		JavaRepository.projectFiles("lib" + System.nanoTime()).forEach((path, content) -> files.put("lib/" + path,
				content));
		files.put("lib/src/l/L.java", "package l;\npublic class L {\n}\n");
		return files;
	}

	private void importLibrary() throws CoreException {
		IWorkspace workspace = ResourcesPlugin.getWorkspace();
		IProjectDescription description = workspace
				.loadProjectDescription(IPath.fromPath(repo.workTree.resolve("lib/.project")));
		library = workspace.getRoot().getProject(description.getName());
		library.create(description, null);
		library.open(null);
	}

	private void importAndBuild() throws Exception {
		harness.autoBuild(true);
		project = repo.importProject();
		if (repo.workTree.resolve("lib/.project").toFile().isFile()) {
			importLibrary();
		}
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
