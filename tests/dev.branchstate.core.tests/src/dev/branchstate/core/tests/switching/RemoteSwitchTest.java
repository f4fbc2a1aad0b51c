package dev.branchstate.core.tests.switching;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.core.IStateListener;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.remote.ManifestSigner;
import dev.branchstate.core.internal.remote.RemoteSettings;
import dev.branchstate.core.internal.remote.RemoteStates;
import dev.branchstate.core.internal.service.RemoteService;

/**
 * The CI flow of remote states with JDT's real builder and a real S3 server: a first workspace (CI) builds both
 * branches and publishes their states; a second developer's clone, in a workspace with an empty local store, switches
 * between the branches — each switch fetches, checks and restores the published state, JDT compiles nothing, and the
 * result equals a clean build, byte for byte and marker for marker. An unreachable store costs the switch no more
 * than its timeout: the builders build as without Branchstate.
 */
class RemoteSwitchTest {

	private static final Map<String, String> MAIN = Map.of( //
			"src/p/A1.java", "package p;\npublic class A1 {\n\tprivate int unused;\n\tpublic int one() { return 1; }\n}\n",
			"src/p/A2.java", "package p;\npublic class A2 {\n\tint two() { return new A1().one() + 1; }\n}\n",
			"src/p/A3.java", "package p;\npublic class A3 {\n}\n");
	private static final Map<String, String> FEAT = Map.of("src/p/X.java",
			"package p;\nimport java.util.List;\npublic class X {\n\tA2 two;\n}\n");

	@TempDir
	Path temp;

	private RemoteFixture team;
	private SwitchHarness harness;
	private RemoteService remote;
	private JavaRepository ci;
	private JavaRepository developer;
	private IProject project;

	@BeforeEach
	void setUp() throws Exception {
		team = new RemoteFixture(temp, MAIN, null);
		harness = team.harness;
		remote = team.remote;
		ci = team.ci;
		ci.branch("feat", FEAT);
		ci.git.checkout().setName("main").call();
	}

	@AfterEach
	void tearDown() throws Exception {
		team.close();
	}

	@Test
	void aSecondDeveloperSwitchesBetweenPublishedStatesAndJdtCompilesNothing() throws Exception {
		KeyPair ciKey = team.ciKey;

		// CI: builds main and feat, saves and publishes each with HEAD at it (the switch to feat saves main)
		team.startCi();
		project = team.project;
		switchTo(ci, "feat");
		harness.service.save(ci.gitDir(), new NullProgressMonitor());
		assertThat(publish(ciKey, ci.git.getRepository().resolve("feat").name()).alreadyPublished()).isFalse();
		assertThatThrownBy(() -> publish(ciKey, ci.git.getRepository().resolve("main").name()))
				.as("not at HEAD").hasMessageContaining("with HEAD at it");
		switchTo(ci, "main");
		assertThat(publish(ciKey, ci.git.getRepository().resolve("main").name()).alreadyPublished()).isFalse();
		List<StateInfo> built = harness.service.states(ci.gitDir());
		assertThat(built).extracting(StateInfo::branches).containsExactlyInAnyOrder(List.of("main"), List.of("feat"));

		// the second developer: the CI workspace's project and states gone, a clone on main, nothing built
		team.endCi();
		developer = team.cloneDeveloper(temp.resolve("developer"));
		project = team.startDeveloper(false);
		assertThat(harness.service.states(developer.gitDir())).isEmpty();
		assertThat(JavaRepository.Build.of(project).output()).as("nothing built in the clone yet").isEmpty();

		for (String branch : List.of("feat", "main")) {
			JdtBuilds.takeCompiled();
			String output = switchTo(developer, branch);
			List<StateEvent> events = harness.takeEvents(developer.gitDir());
			assertThat(events).as(output).anyMatch(e -> e.kind() == StateEvent.Kind.FETCHED);
			assertThat(output).contains("restored");
			assertThat(JdtBuilds.takeCompiled()).as("units JDT compiled after the fetched state of " + branch)
					.isEmpty();
			assertEqualToCleanBuild(developer, branch);
		}
		// back to feat: its state is local now (fetched before, saved when it was left), nothing is fetched again
		JdtBuilds.takeCompiled(); // (the clean build's)
		String output = switchTo(developer, "feat");
		List<StateEvent> events = harness.takeEvents(developer.gitDir());
		assertThat(events).noneMatch(e -> e.kind() == StateEvent.Kind.FETCHED);
		assertThat(JdtBuilds.takeCompiled()).as(output + events).isEmpty();
		assertEqualToCleanBuild(developer, "feat");
	}

	@Test
	void anUnreachableStoreLetsTheSwitchBuildWithinTheTimeout() throws Exception {
		int port;
		try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			port = s.getLocalPort();
		}
		// a black hole rather than a refused connection would cost the connect timeout: 2 s here
		team.startCi();
		project = team.project;
		remote.setSettings(new RemoteSettings(URI.create("http://127.0.0.1:" + port), "states", "", "us-east-1", true,
				Optional.empty(), Optional.of(ManifestSigner.generate().getPublic()), Duration.ofSeconds(2)));

		long start = System.nanoTime();
		JdtBuilds.takeCompiled();
		switchTo(ci, "feat");
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		assertThat(JdtBuilds.takeCompiled()).as("no state anywhere: JDT builds the checkout's change")
				.contains("src/p/X.java");
		assertEqualToCleanBuild(ci, "feat");
		assertThat(took).isLessThan(Duration.ofSeconds(30));

		// the switch's lookup failed once; two more failures and the store is left alone for the session, which the
		// user is told once (the UI shows REMOTE_GIVEN_UP as a notice), not at every failure after it
		assertThat(remote.usableForSwitch()).isTrue();
		List<StateEvent> givenUp = new java.util.concurrent.CopyOnWriteArrayList<>();
		IStateListener listener = e -> {
			if (e.kind() == StateEvent.Kind.REMOTE_GIVEN_UP) {
				givenUp.add(e);
			}
		};
		harness.service.addStateListener(listener);
		try {
			for (int i = 0; i < 2; i++) {
				assertThatThrownBy(() -> remote.publishedCommits(ci.git.getRepository(), ci.gitDir()))
						.hasMessageContaining("127.0.0.1:" + port);
			}
			assertThat(remote.usableForSwitch()).as("given up after three failures in a row").isFalse();
			assertThat(givenUp).hasSize(1);
			assertThat(givenUp.get(0).message()).contains("127.0.0.1:" + port).contains("3 times in a row")
					.contains("until Eclipse restarts");
			assertThat(givenUp.get(0).status().getSeverity()).isEqualTo(IStatus.WARNING);

			assertThatThrownBy(() -> remote.publishedCommits(ci.git.getRepository(), ci.gitDir()))
					.hasMessageContaining("127.0.0.1:" + port);
			assertThat(givenUp).as("told once per session").hasSize(1);
		} finally {
			harness.service.removeStateListener(listener);
		}
	}

	private RemoteStates.Published publish(KeyPair key, String commit) throws Exception {
		return remote.publish(ci.gitDir(), commit, key.getPrivate(), "ci", new NullProgressMonitor());
	}

	private static String switchTo(JavaRepository repo, String branch) throws Exception {
		return repo.switchTo(branch, 0);
	}

	private void assertEqualToCleanBuild(JavaRepository repo, String branch) throws Exception {
		assertThat(repo.git.getRepository().getBranch()).isEqualTo(branch);
		JavaRepository.Build actual = JavaRepository.Build.of(project);
		JavaRepository.Build clean = repo.cleanBuild(temp);
		assertThat(clean.output()).as("a clean build of " + branch + " compiles something").isNotEmpty();
		assertThat(actual.differencesFrom(clean)).as("bin/ and markers on %s against a clean build", branch).isEmpty();
	}
}
