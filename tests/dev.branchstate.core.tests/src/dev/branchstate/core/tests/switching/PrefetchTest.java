package dev.branchstate.core.tests.switching;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IncrementalProjectBuilder;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.ILogListener;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Platform;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.jgit.api.ResetCommand.ResetType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.FrameworkUtil;
import org.osgi.util.tracker.ServiceTracker;

import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.prefetch.Prefetcher;
import dev.branchstate.core.tests.CountingRelay;

/**
 * Prefetch with JDT's real builder, real Git repositories and a real S3 server behind a relay that counts the
 * requests: CI publishes the states of {@code main} and {@code feat}; a developer's clone, made before CI's commits,
 * runs {@code git fetch}; Branchstate prefetches the states of the moved tips in the background, and the checkout
 * of {@code feat} that follows restores from the local store without one request to the remote store; JDT compiles
 * nothing and the result equals a clean build. A tampered archive is refused by the prefetch, named in the Error Log,
 * and enters nothing.
 */
class PrefetchTest {

	static final Map<String, String> MAIN = Map.of( //
			"src/p/A1.java", "package p;\npublic class A1 {\n\tprivate int unused;\n\tpublic int one() { return 1; }\n}\n",
			"src/p/A2.java", "package p;\npublic class A2 {\n\tint two() { return new A1().one() + 1; }\n}\n",
			"src/p/A3.java", "package p;\npublic class A3 {\n}\n");
	private static final Map<String, String> MAIN2 = Map.of("src/p/A3.java",
			"package p;\npublic class A3 {\n\tint three() { return new A2().two() + 1; }\n}\n");
	private static final Map<String, String> FEAT = Map.of("src/p/X.java",
			"package p;\nimport java.util.List;\npublic class X {\n\tA2 two;\n}\n");
	private static final long TIMEOUT_MS = 120_000;

	@TempDir
	Path temp;

	private RemoteFixture team;
	private SwitchHarness harness;
	private JavaRepository ci;
	private JavaRepository developer;
	private IProject project;
	private CountingRelay relay;
	private String main2;
	private String feat;

	@BeforeEach
	void setUp() throws Exception {
		team = new RemoteFixture(temp, MAIN, null);
		harness = team.harness;
		ci = team.ci;
		relay = team.relay;
		// the developer clones before CI's next commits: its git fetch moves origin/main and brings origin/feat
		developer = team.cloneDeveloper(temp.resolve("developer"));
		main2 = ci.commit("main 2", MAIN2);
		feat = ci.branch("feat", FEAT);
		ci.git.checkout().setName("main").call();
	}

	@AfterEach
	void tearDown() throws Exception {
		team.close();
	}

	@Test
	void aFetchPrefetchesTheMovedTipsAndTheCheckoutAsksTheStoreNothing() throws Exception {
		publishMainAndFeat();
		importDeveloper();

		developer.git.fetch().call(); // as EGit's Fetch or a git fetch in a terminal
		awaitFetched(main2);
		awaitFetched(feat);
		awaitPrefetch();
		List<String> prefetchRequests = relay.takeRequests();
		assertThat(harness.service.states(developer.gitDir())).extracting(StateInfo::commitId)
				.containsExactlyInAnyOrder(main2, feat);
		assertThat(prefetcher().ledger().prefetched(developer.gitDir(), feat)).isTrue();
		assertThat(prefetchRequests).as("one listing, then a manifest and the archive of each")
				.anyMatch(r -> r.startsWith("GET ") && r.contains("list-type=2"))
				.filteredOn(r -> r.contains("/manifests/")).hasSize(2);

		harness.takeEvents(developer.gitDir()); // the prefetch's
		JdtBuilds.takeCompiled();
		String output = developer.switchTo("feat", 0);
		List<String> switchRequests = relay.takeRequests();
		List<StateEvent> events = harness.takeEvents(developer.gitDir());
		assertThat(switchRequests).as("requests the S3 server saw during the checkout of feat: " + output).isEmpty();
		assertThat(events).as(output).anyMatch(e -> e.kind() == StateEvent.Kind.RESTORED && feat.equals(e.commitId()))
				.noneMatch(e -> e.kind() == StateEvent.Kind.FETCHED);
		assertThat(JdtBuilds.takeCompiled()).as("units JDT compiled after the prefetched state of feat").isEmpty();
		assertEqualToCleanBuild("feat");
		assertThat(prefetcher().ledger().prefetched(developer.gitDir(), feat)).as("restored: used, not prefetched")
				.isFalse();
		System.out.println("prefetch: " + prefetchRequests.size() + " requests " + prefetchRequests
				+ "; switch to feat after it: " + switchRequests.size() + " requests");
	}

	/**
	 * A fast-forward pull moves HEAD within its branch: no branch switch, but the files of every commit pulled
	 * change. The prefetched state of the commit pulled is restored without a request to the store, and JDT compiles
	 * nothing. A {@code git reset --mixed} back to the commit before keeps the files as they are: the derived data on
	 * disk is right for them, and the stored state of that commit is not restored even though it is the exact one.
	 */
	@Test
	void aFastForwardPullOntoAPrefetchedCommitRestoresItAndAResetThatKeepsTheFilesRestoresNothing() throws Exception {
		publishMainAndFeat();
		importDeveloper();
		String before = developer.git.getRepository().resolve("HEAD").name();
		ResourcesPlugin.getWorkspace().build(IncrementalProjectBuilder.INCREMENTAL_BUILD, null);
		SwitchHarness.awaitQuiet();
		RemoteFixture.saveHead(harness, developer);
		developer.git.fetch().call();
		awaitFetched(main2);
		awaitPrefetch();
		relay.takeRequests();
		harness.takeEvents(developer.gitDir());
		JdtBuilds.takeCompiled();

		developer.git.pull().call(); // as EGit's Pull: a fetch, then a fast-forward merge of origin/main
		StateEvent handled = harness.awaitEvent(developer.gitDir(), e -> main2.equals(e.commitId())
				&& e.kind() != StateEvent.Kind.SAVED && e.kind() != StateEvent.Kind.FETCHED);
		SwitchHarness.awaitQuiet();
		ResourcesPlugin.getWorkspace().build(IncrementalProjectBuilder.INCREMENTAL_BUILD, null);
		SwitchHarness.awaitQuiet();
		assertThat(handled.kind()).as(handled.message()).isEqualTo(StateEvent.Kind.RESTORED);
		assertThat(relay.takeRequests()).as("requests the S3 server saw during the pull").isEmpty();
		assertThat(JdtBuilds.takeCompiled()).as("units JDT compiled after the pull's restore").isEmpty();
		assertEqualToCleanBuild("main");

		harness.takeEvents(developer.gitDir());
		JdtBuilds.takeCompiled(); // the clean build's
		developer.git.reset().setMode(ResetType.MIXED).setRef(before).call(); // "uncommit": the files stay
		StateEvent reset = harness.awaitEvent(developer.gitDir(), e -> before.equals(e.commitId()));
		SwitchHarness.awaitQuiet();
		ResourcesPlugin.getWorkspace().build(IncrementalProjectBuilder.INCREMENTAL_BUILD, null);
		SwitchHarness.awaitQuiet();
		assertThat(reset.kind()).as(reset.message()).isEqualTo(StateEvent.Kind.SKIPPED);
		assertThat(reset.message()).contains("within branch main");
		assertThat(harness.takeEvents(developer.gitDir())).noneMatch(e -> e.kind() == StateEvent.Kind.RESTORED);
		assertThat(JdtBuilds.takeCompiled()).as("units JDT compiled after the reset").isEmpty();
		assertEqualToCleanBuild("main");
	}

	@Test
	void aTamperedArchiveIsRefusedByThePrefetchAndEntersNothing() throws Exception {
		publishMainAndFeat();
		Path archive;
		try (var files = Files.walk(team.server.objectFile("team/states"))) {
			archive = files.filter(f -> Files.isRegularFile(f) && f.toString().contains(feat.substring(0, 10))
					&& f.toString().contains("/archives/")).findFirst().orElseThrow();
		}
		byte[] bytes = Files.readAllBytes(archive);
		bytes[bytes.length / 2] ^= 0x40;
		Files.write(archive, bytes);
		importDeveloper();
		List<IStatus> logged = new CopyOnWriteArrayList<>();
		ILogListener listener = (status, plugin) -> logged.add(status);
		Platform.addLogListener(listener);
		try {
			developer.git.fetch().call();
			awaitFetched(main2);
			awaitPrefetch();
		} finally {
			Platform.removeLogListener(listener);
		}
		assertThat(harness.service.states(developer.gitDir())).extracting(StateInfo::commitId)
				.as("the state of main prefetched, the tampered one of feat not").containsExactly(main2);
		assertThat(logged).as("the refusal, in the Error Log").anyMatch(s -> s.getSeverity() == IStatus.WARNING
				&& s.getMessage().contains("SHA-256") && s.getMessage().contains(feat) && s.getMessage().contains("refused"));
		try (var files = Files.list(storeFolderOf(harness.service.states(developer.gitDir()).get(0)))) {
			assertThat(files.map(f -> f.getFileName().toString()))
					.as("no download left behind").noneMatch(n -> n.endsWith(".download") || n.startsWith(feat));
		}
	}

	private static Path storeFolderOf(StateInfo state) {
		return state.archive().getParent();
	}

	/** CI builds main and feat, saves and publishes each with HEAD at it; then its workspace forgets them. */
	private void publishMainAndFeat() throws Exception {
		team.startCi();
		ci.switchTo("feat", 0);
		assertThat(team.publishHead().alreadyPublished()).isFalse();
		ci.switchTo("main", 0);
		assertThat(team.publishHead().alreadyPublished()).isFalse();
		team.endCi();
	}

	/**
	 * The developer's clone imported, nothing built, its remote store the S3 server behind the counting relay; the
	 * prefetch has seen its remote-tracking branches as they are.
	 */
	private void importDeveloper() throws Exception {
		project = team.startDeveloper(false);
		prefetcher().checkNow();
		awaitPrefetch();
		assertThat(relay.takeRequests()).as("a repository new to the prefetch: nothing moved yet").isEmpty();
	}

	private void awaitFetched(String commit) throws InterruptedException {
		harness.awaitEvent(developer.gitDir(), e -> e.kind() == StateEvent.Kind.FETCHED && commit.equals(e.commitId()));
	}

	/** Waits (bounded) until the prefetch job is done: nothing left that moved. */
	static void awaitPrefetch() throws InterruptedException {
		long deadline = System.currentTimeMillis() + TIMEOUT_MS;
		Job[] jobs;
		while ((jobs = Job.getJobManager().find(Prefetcher.FAMILY)).length > 0) {
			for (Job job : jobs) {
				long left = deadline - System.currentTimeMillis();
				if (left <= 0 || !job.join(left, null)) {
					throw new AssertionError("the prefetch is still busy after " + TIMEOUT_MS + " ms");
				}
			}
		}
	}

	static Prefetcher prefetcher() throws InterruptedException {
		ServiceTracker<Prefetcher, Prefetcher> tracker = new ServiceTracker<>(
				FrameworkUtil.getBundle(PrefetchTest.class).getBundleContext(), Prefetcher.class, null);
		tracker.open();
		try {
			Prefetcher prefetcher = tracker.waitForService(TIMEOUT_MS);
			assertThat(prefetcher).as("the prefetcher component").isNotNull();
			return prefetcher;
		} finally {
			tracker.close();
		}
	}

	private void assertEqualToCleanBuild(String branch) throws Exception {
		assertThat(developer.git.getRepository().getBranch()).isEqualTo(branch);
		JavaRepository.Build actual = JavaRepository.Build.of(project);
		JavaRepository.Build clean = developer.cleanBuild(temp);
		assertThat(clean.output()).as("a clean build of " + branch + " compiles something").isNotEmpty();
		assertThat(actual.differencesFrom(clean)).as("bin/ and markers on %s against a clean build", branch).isEmpty();
	}
}
