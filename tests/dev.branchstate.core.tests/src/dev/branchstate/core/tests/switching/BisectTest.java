package dev.branchstate.core.tests.switching;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.remote.ManifestSigner;
import dev.branchstate.core.internal.remote.RemoteSettings;
import dev.branchstate.core.internal.service.RemoteService;
import dev.branchstate.core.internal.service.StateService;
import dev.branchstate.core.tests.CountingRelay;
import dev.branchstate.core.tests.S3Server;

/**
 * A {@code git bisect} served from the remote store: CI publishes the state of every commit of a range of
 * {@value #COMMITS}; a developer's clone with an empty local store bisects it (each step a checkout of the midpoint,
 * detached HEAD). Each step restores the published state of the commit checked out, JDT compiles nothing, and the
 * result equals a clean build byte for byte and marker for marker. The requests the S3 server saw and the time of
 * each step are reported.
 */
class BisectTest {

	/** Commits of the range: a bisect of them takes 5 steps. */
	private static final int COMMITS = 33;
	/** The first "bad" commit the bisect finds. */
	private static final int FIRST_BAD = 21;

	@TempDir
	Path temp;

	private SwitchHarness harness;
	private RemoteService remote;
	private JavaRepository ci;
	private JavaRepository developer;
	private IProject project;
	private S3Server server;
	private CountingRelay relay;
	private final List<String> commits = new ArrayList<>();

	@BeforeEach
	void setUp() throws Exception {
		harness = new SwitchHarness();
		remote = ((StateService) harness.service).remote();
		server = new S3Server(temp.resolve("s3"));
		relay = new CountingRelay(server.endpoint);
		ci = JavaRepository.create(temp.resolve("ci"), PrefetchTest.MAIN);
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
		remote.setSettings(null);
		JdtBuilds.release();
		if (developer != null) {
			developer.discard(harness, project);
			ci.close();
		} else {
			ci.discard(harness, project);
		}
		harness.autoBuild(true);
		harness.close();
		relay.close();
		server.close();
	}

	@Test
	void eachStepOfABisectRestoresThePublishedStateOfItsCommit() throws Exception {
		KeyPair ciKey = ManifestSigner.generate();
		publishEveryCommit(ciKey);

		developer = ci.cloneInto(temp.resolve("developer"), "main");
		remote.setSettings(new RemoteSettings(relay.endpoint, S3Server.BUCKET, "team/states", "us-east-1", true,
				Optional.of(server.credentials), Optional.of(ciKey.getPublic()), Duration.ofSeconds(10)));
		harness.autoBuild(false);
		project = developer.importProject();
		harness.manager().track();
		SwitchHarness.awaitQuiet();
		relay.takeRequests();

		int good = 0;
		int bad = COMMITS - 1;
		List<String> report = new ArrayList<>();
		while (bad - good > 1) {
			int mid = (good + bad) / 2;
			String commit = commits.get(mid);
			harness.takeEvents(developer.gitDir());
			JdtBuilds.takeCompiled();
			long start = System.nanoTime();
			String output = developer.switchTo(commit, 0);
			long ms = (System.nanoTime() - start) / 1_000_000;
			List<String> requests = relay.takeRequests();
			List<StateEvent> events = harness.takeEvents(developer.gitDir());
			assertThat(developer.git.getRepository().getFullBranch()).as("detached").isEqualTo(commit);
			assertThat(events).as(output).anyMatch(e -> e.kind() == StateEvent.Kind.RESTORED && commit.equals(e.commitId()));
			assertThat(JdtBuilds.takeCompiled()).as("units JDT compiled at step " + report.size()).isEmpty();
			assertEqualToCleanBuild(mid);
			report.add("bisect step " + (report.size() + 1) + ": commit " + mid + " (" + commit.substring(0, 10) + ") "
					+ requests.size() + " requests, " + ms + " ms (checkout, fetch, restore, build, jobs) " + requests);
			if (mid >= FIRST_BAD) {
				bad = mid;
			} else {
				good = mid;
			}
		}
		report.forEach(System.out::println);
		assertThat(bad).as("the first bad commit found").isEqualTo(FIRST_BAD);
		assertThat(report).as("steps").hasSizeGreaterThanOrEqualTo(5);
	}

	/** CI checks out every commit of the range in turn (detached), builds, saves and publishes its state. */
	private void publishEveryCommit(KeyPair key) throws Exception {
		remote.setSettings(server.settings(server.credentials).withPublicKey(key.getPublic()));
		harness.autoBuild(true);
		project = ci.importProject();
		harness.manager().track();
		SwitchHarness.awaitQuiet();
		for (String commit : commits) {
			ci.switchTo(commit, 0);
			PrefetchTest.saveHead(harness, ci);
			remote.publish(ci.gitDir(), commit, key.getPrivate(), "ci", new NullProgressMonitor());
		}
		for (StateInfo state : harness.service.states(ci.gitDir())) {
			harness.service.delete(state);
		}
		project.delete(false, true, null);
		project = null;
		SwitchHarness.awaitQuiet();
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
