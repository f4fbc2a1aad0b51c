package dev.branchstate.core.tests.switching;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IResourceChangeEvent;
import org.eclipse.core.resources.IResourceChangeListener;
import org.eclipse.core.resources.IResourceDelta;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.jobs.IJobChangeEvent;
import org.eclipse.core.runtime.jobs.IJobChangeListener;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.core.runtime.jobs.JobChangeAdapter;
import org.eclipse.jdt.internal.core.JavaModelManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateEvent.Kind;
import dev.branchstate.core.internal.switching.SaveAheadJob;
import dev.branchstate.core.internal.switching.SwitchManager;

/**
 * A switch between two exact states, checked out in the IDE (JGit, then the refresh), is over when it is handled
 * and JDT's build compiled nothing: no job is scheduled behind it — no save, no index job of JDT's, no refresh,
 * nothing of Branchstate's — and JDT's indexer has nothing queued. The states were saved at the session's start,
 * while JDT was still indexing the import: each is completed (JDT's index added) once it is on disk again and the IDE
 * is idle.
 */
class QuietAfterRestoreTest {

	/**
	 * JDT writes the names of its saved indexes (a small file) in this job at every change of an index's state: the
	 * refresh's requests make the project's index UPDATING, the restored one is SAVED. Not work behind the switch.
	 */
	private static final String JDT_INDEX_NAMES = "Updating index names";

	/**
	 * core.resources' timer: it compacts the resource tree's strings five minutes after the workspace opened and then
	 * every fifteen minutes, rescheduling itself at its end, whatever the workspace does. A test session that has run
	 * that long sees it scheduled behind any switch (a CI run did). Not work behind the switch.
	 */
	private static final String RESOURCES_STRING_POOL = "org.eclipse.core.internal.utils.StringPoolJob";

	@TempDir
	Path temp;

	private SwitchHarness harness;
	private JavaRepository repo;
	private IProject project;
	private final List<String> scheduled = new CopyOnWriteArrayList<>();
	private final IJobChangeListener jobs = new JobChangeAdapter() {
		@Override
		public void scheduled(IJobChangeEvent event) {
			Job job = event.getJob();
			if (!job.belongsTo(SwitchManager.FAMILY) && !job.belongsTo(ResourcesPlugin.FAMILY_AUTO_BUILD)
					&& !job.getName().equals(JDT_INDEX_NAMES)
					&& !job.getClass().getName().equals(RESOURCES_STRING_POOL)) {
				// JDT's progress job: what its indexer started on
				Object indexing = job.getClass().getName().startsWith("org.eclipse.jdt.")
						? ", JDT's indexer at " + JavaModelManager.getIndexManager().currentJobForced()
						: "";
				scheduled.add(job.getName() + " [" + job.getClass().getName() + ", delay " + event.getDelay() + " ms"
						+ indexing + "]");
			}
		}
	};

	@BeforeEach
	void setUp() throws Exception {
		harness = new SwitchHarness();
		Map<String, String> main = new LinkedHashMap<>();
		Map<String, String> feat = new LinkedHashMap<>();
		for (int i = 0; i < 40; i++) {
			main.put("src/p/C" + i + ".java", "package p;\npublic class C" + i + " {\n\tint v() { return " + i
					+ "; }\n\tC" + (i + 1) % 40 + " next;\n}\n");
			if (i % 4 == 0) {
				feat.put("src/p/C" + i + ".java", "package p;\npublic class C" + i + " {\n\tlong v() { return " + i
						+ "L; }\n\tC" + (i + 1) % 40 + " next;\n\tint unused;\n}\n");
			}
		}
		feat.put("src/q/F.java", "package q;\npublic class F extends p.C1 {\n}\n");
		repo = JavaRepository.create(temp.resolve("repo"), main);
		repo.branch("feat", feat);
		repo.git.checkout().setName("main").call();
		harness.autoBuild(true);
		project = repo.importProject();
		harness.manager().track();
		SwitchHarness.awaitQuiet();
	}

	@AfterEach
	void tearDown() throws Exception {
		Job.getJobManager().removeJobChangeListener(jobs);
		JdtBuilds.release();
		repo.discard(harness, project);
		harness.close();
	}

	@Test
	void nothingRunsBehindAnExactRestore() throws Exception {
		// a session's start: JDT's indexer is still indexing the import, so the first states are saved without
		// JDT's index; each is completed once it is on disk again (saved at HEAD, or restored) and the IDE is
		// idle: the completion gives up while the IDE stays busy, and each restore of a partial state tries again, so
		// the test waits on the states, not on a number of attempts
		checkout("feat");
		for (int round = 0; round < 10 && !statesComplete(); round++) {
			for (String branch : List.of("main", "feat")) {
				checkout(branch);
				awaitIndexerIdle();
				Job.getJobManager().join(SaveAheadJob.FAMILY, null);
			}
		}
		// JDT saves changed indexes after a second of idling and then updates its meta-index in a job: done now, so
		// that what runs after the restores below is theirs
		JavaModelManager.getIndexManager().saveIndexes();
		awaitIndexerIdle();
		assertThat(harness.service.states(repo.gitDir())).as("complete states of main and feat").hasSize(2)
				.allSatisfy(s -> assertThat(s.contributors()).containsKey("dev.branchstate.jdt.index"));
		harness.takeEvents(repo.gitDir());

		Job.getJobManager().addJobChangeListener(jobs);
		for (String branch : List.of("main", "feat", "main")) {
			scheduled.clear();
			checkout(branch);
			List<StateEvent> events = harness.takeEvents(repo.gitDir());
			assertThat(events).as("the switch to " + branch).anyMatch(e -> e.kind() == Kind.RESTORED)
					.noneMatch(e -> e.kind() == Kind.SAVED || e.kind() == Kind.FAILED);
			assertThat(scheduled).as("jobs scheduled behind the exact restore of " + branch + "; events: " + events)
					.isEmpty();
			assertThat(changedByARefresh()).as("files out of sync with the workspace after the exact restore of "
					+ branch + " (a refresh would hand them to the builders)").isEmpty();
			assertThat(JavaModelManager.getIndexManager().awaitingJobsCount())
					.as("JDT's index jobs queued after the exact restore of " + branch + "; events: " + events).isZero();
		}
	}

	private boolean statesComplete() throws Exception {
		var states = harness.service.states(repo.gitDir());
		return states.size() == 2 && states.stream().allMatch(s -> s.contributors().containsKey("dev.branchstate.jdt.index"));
	}

	/** @return the resources a refresh of the project finds changed on disk */
	private List<String> changedByARefresh() throws Exception {
		List<String> changed = new CopyOnWriteArrayList<>();
		IResourceChangeListener listener = event -> {
			try {
				event.getDelta().accept(delta -> {
					if (delta.getKind() != IResourceDelta.CHANGED || delta.getFlags() != 0) {
						changed.add(delta.getFullPath() + " " + delta.getKind() + "/" + delta.getFlags());
					}
					return true;
				});
			} catch (CoreException e) {
				throw new IllegalStateException(e);
			}
		};
		ResourcesPlugin.getWorkspace().addResourceChangeListener(listener, IResourceChangeEvent.POST_CHANGE);
		try {
			project.refreshLocal(IResource.DEPTH_INFINITE, null);
		} finally {
			ResourcesPlugin.getWorkspace().removeResourceChangeListener(listener);
		}
		return changed;
	}

	/** JDT's indexer works in its own thread, not in a job: its queue of the import's libraries is emptied first. */
	private static void awaitIndexerIdle() throws InterruptedException {
		long deadline = System.currentTimeMillis() + 120_000;
		while (JavaModelManager.getIndexManager().awaitingJobsCount() > 0) {
			assertThat(System.currentTimeMillis()).as("JDT's indexer idle within 2 minutes").isLessThan(deadline);
			Thread.sleep(20);
		}
	}

	private void checkout(String branch) throws Exception {
		repo.git.checkout().setName(branch).call();
		project.refreshLocal(IResource.DEPTH_INFINITE, null);
		SwitchHarness.awaitQuiet();
	}
}
