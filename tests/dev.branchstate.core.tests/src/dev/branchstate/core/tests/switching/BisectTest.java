package dev.branchstate.core.tests.switching;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IncrementalProjectBuilder;
import org.eclipse.core.resources.ResourcesPlugin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.tests.CountingRelay;

/**
 * A {@code git bisect} served from the remote store: CI publishes the state of every commit of a range of
 * {@value #COMMITS}; a developer's clone with an empty local store bisects it with the git command line (each start or
 * verdict a checkout of the next commit to test, detached HEAD). Each step restores the published state of the commit
 * checked out, JDT compiles nothing, and the result equals a clean build byte for byte and marker for marker. Only
 * the first step fetches at the checkout: while the developer tests a commit, the states of the two commits the
 * verdict may check out next are prefetched. The requests the S3 server saw and the time of each step are reported.
 */
class BisectTest {

	/** Commits of the range: a bisect of them takes 5 steps. */
	private static final int COMMITS = 33;
	/** The first "bad" commit the bisect finds. */
	private static final int FIRST_BAD = 21;

	@TempDir
	Path temp;

	private RemoteFixture team;
	private SwitchHarness harness;
	private JavaRepository ci;
	private JavaRepository developer;
	private IProject project;
	private CountingRelay relay;
	private final List<String> commits = new ArrayList<>();

	@BeforeEach
	void setUp() throws Exception {
		team = new RemoteFixture(temp, PrefetchTest.MAIN, null);
		harness = team.harness;
		ci = team.ci;
		relay = team.relay;
		commits.add(ci.git.getRepository().resolve("HEAD").name());
		for (int i = 1; i < COMMITS; i++) {
			commits.add(ci.commit("step " + i, Map.of("src/p/B.java", source(i))));
		}
	}

	/** Commit {@code i}'s version of B: odd ones with an unused field (a warning marker), bad ones with an error. */
	private static String source(int i) {
		return "package p;\npublic class B {\n" + (i % 2 == 1 ? "\tprivate int unused" + i + ";\n" : "")
				+ "\tint value() { return new A2().two() + " + i + "; }\n"
				+ (i >= FIRST_BAD ? "\tint broken() { return missing" + i + "(); }\n" : "") + "}\n";
	}

	@AfterEach
	void tearDown() throws Exception {
		team.close();
	}

	@Test
	void eachStepOfABisectRestoresThePublishedStateOfItsCommitPrefetchedDuringTheStepBefore() throws Exception {
		publishEveryCommit();
		developer = team.cloneDeveloper(temp.resolve("developer"));
		project = team.startDeveloper(false);
		PrefetchTest.prefetcher().checkNow();
		PrefetchTest.awaitPrefetch();
		relay.takeRequests();
		harness.takeEvents(developer.gitDir());

		// git bisect in a terminal: each start or verdict checks out the next commit to test (detached HEAD)
		developer.cli("bisect", "start", commits.get(COMMITS - 1), commits.get(0));
		int good = 0;
		int bad = COMMITS - 1;
		List<String> report = new ArrayList<>();
		List<Integer> onDemand = new ArrayList<>();
		while (true) {
			long start = System.nanoTime();
			String commit = developer.git.getRepository().resolve("HEAD").name();
			int mid = commits.indexOf(commit);
			StateEvent handled = harness.awaitEvent(developer.gitDir(), e -> commit.equals(e.commitId())
					&& e.kind() != StateEvent.Kind.FETCHED && e.kind() != StateEvent.Kind.SAVED);
			SwitchHarness.awaitQuiet();
			JdtBuilds.takeCompiled();
			ResourcesPlugin.getWorkspace().build(IncrementalProjectBuilder.INCREMENTAL_BUILD, null);
			SwitchHarness.awaitQuiet();
			long ms = (System.nanoTime() - start) / 1_000_000;
			List<String> requests = relay.takeRequests();
			List<String> forCommit = requests.stream().filter(r -> r.contains(commit.substring(0, 10))).toList();
			List<StateEvent> events = harness.takeEvents(developer.gitDir());
			assertThat(mid).as("HEAD at a commit of the range").isBetween(good + 1, bad - 1);
			assertThat(handled.kind()).as(handled.message()).isEqualTo(StateEvent.Kind.RESTORED);
			assertThat(JdtBuilds.takeCompiled()).as("units JDT compiled at step " + (report.size() + 1)).isEmpty();
			assertEqualToCleanBuild(mid);
			if (!forCommit.isEmpty() || events.stream().anyMatch(
					e -> e.kind() == StateEvent.Kind.FETCHED && commit.equals(e.commitId()))) {
				onDemand.add(report.size() + 1);
			}
			awaitStatesOfTheNextCandidates(good, mid, bad); // prefetched: the verdict may check out either
			List<String> prefetched = relay.takeRequests();
			report.add("bisect step " + (report.size() + 1) + ": commit " + mid + " (" + commit.substring(0, 10)
					+ ") restored in " + ms + " ms (switch, restore, build); requests for it " + forCommit.size()
					+ ", in the step " + requests.size() + ", prefetching the next candidates " + prefetched.size());
			boolean isBad = mid >= FIRST_BAD;
			if (isBad) {
				bad = mid;
			} else {
				good = mid;
			}
			harness.takeEvents(developer.gitDir());
			developer.cli("bisect", isBad ? "bad" : "good");
			if (bad - good == 1) {
				break; // git names the first bad commit and checks out nothing more
			}
		}
		developer.cli("bisect", "reset");
		report.forEach(System.out::println);
		assertThat(bad).as("the first bad commit found").isEqualTo(FIRST_BAD);
		assertThat(report).as("steps").hasSizeGreaterThanOrEqualTo(5);
		assertThat(onDemand).as("steps whose state was fetched at the checkout, not before it").containsExactly(1);
	}

	/**
	 * Waits (bounded) until the local store holds a state of a commit that each verdict on {@code mid} may check out
	 * next, as the prefetch fetches them once it sees the bisect's refs and HEAD move. On this linear range, git checks
	 * out a commit of the remaining range reachable from about half of it (see BisectCandidates).
	 */
	private void awaitStatesOfTheNextCandidates(int good, int mid, int bad) throws InterruptedException {
		List<List<String>> wanted = List.of(halfway(mid, bad), halfway(good, mid));
		long deadline = System.currentTimeMillis() + 120_000;
		while (true) {
			List<String> local = harness.service.states(developer.gitDir()).stream().map(StateInfo::commitId).toList();
			if (wanted.stream().allMatch(w -> w.isEmpty() || w.stream().anyMatch(local::contains))) {
				PrefetchTest.awaitPrefetch();
				return;
			}
			if (System.currentTimeMillis() > deadline) {
				throw new AssertionError("no state of the next candidates " + wanted + " after 120 s; local: " + local);
			}
			Thread.sleep(50);
		}
	}

	/** @return the commits of the range {@code (from, to]} that reach about half of it (none when it has one commit) */
	private List<String> halfway(int from, int to) {
		int n = to - from;
		List<String> result = new ArrayList<>();
		for (int i = from + 1; n >= 2 && i <= to; i++) {
			if (Math.abs(2 * (i - from) - n) <= 1) {
				result.add(commits.get(i));
			}
		}
		return result;
	}

	/** CI checks out every commit of the range in turn (detached), builds, saves and publishes its state. */
	private void publishEveryCommit() throws Exception {
		team.startCi();
		for (String commit : commits) {
			ci.switchTo(commit, 0);
			team.publishHead();
		}
		team.endCi();
	}

	private void assertEqualToCleanBuild(int mid) throws Exception {
		JavaRepository.Build actual = JavaRepository.Build.of(project);
		JavaRepository.Build clean = developer.cleanBuild(temp);
		assertThat(clean.output()).as("a clean build of commit " + mid + " compiles something").isNotEmpty();
		if (mid >= FIRST_BAD) {
			assertThat(clean.markers()).as("the error of a bad commit").anyMatch(m -> m.contains("missing"));
		}
		assertThat(actual.differencesFrom(clean)).as("bin/ and markers at commit %d against a clean build", mid)
				.isEmpty();
	}
}
