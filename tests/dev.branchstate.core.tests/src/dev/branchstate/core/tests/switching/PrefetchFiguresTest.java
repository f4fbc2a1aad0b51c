package dev.branchstate.core.tests.switching;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.eclipse.core.resources.IProject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.app.SwitchCommand;
import dev.branchstate.core.tests.CountingRelay;

/**
 * The same switch three ways in one run, in a developer's clone of a Java project of {@value #CLASSES} classes that
 * all call a class the switch changes structurally (so JDT recompiles every one of them when it builds the change):
 * after the prefetch of a {@code git fetch} (no request to the store), fetching on demand, and without Branchstate
 * (JDT builds the change). Each result is checked against a clean build; the times are reported, not asserted.
 */
class PrefetchFiguresTest {

	/** Classes of the project: 300, or the environment's {@code PREFETCH_FIGURES_CLASSES} (the README's figures). */
	private static final int CLASSES = Integer.parseInt(System.getenv().getOrDefault("PREFETCH_FIGURES_CLASSES", "300"));
	/**
	 * The network between the developer and the store: loopback as it is, or the environment's
	 * {@code PREFETCH_FIGURES_LINK} ({@code 30ms,20mbit}: see {@link CountingRelay.Link#parse}).
	 */
	private static final CountingRelay.Link LINK = CountingRelay.Link.parse(System.getenv("PREFETCH_FIGURES_LINK"));
	private static final Pattern TOTAL = Pattern.compile("total_ms=(\\d+)"); //$NON-NLS-1$
	private static final Pattern BUILD = Pattern.compile("build_ms=(\\d+)"); //$NON-NLS-1$

	@TempDir
	Path temp;

	private RemoteFixture team;
	private SwitchHarness harness;
	private JavaRepository ci;
	private JavaRepository developer;
	private IProject project;
	private CountingRelay relay;
	private String feat;

	@BeforeEach
	void setUp() throws Exception {
		Map<String, String> sources = new LinkedHashMap<>(PrefetchTest.MAIN);
		sources.put("src/q/Base.java", "package q;\npublic class Base {\n\tpublic static int k() { return 1; }\n}\n");
		for (int i = 0; i < CLASSES; i++) {
			StringBuilder more = new StringBuilder();
			for (int m = 0; m < 6; m++) { // a class file of about 1.5 kB, as in a real project
				more.append("\tpublic String m" + m + "(String s) { return s.isEmpty() ? \"C" + i + ".m" + m
						+ "\" : s.substring(1) + m" + m + "(\"\") + Base.k(); }\n");
			}
			sources.put("src/q/C" + i + ".java", "package q;\npublic class C" + i + " {\n\tpublic int v() { return "
					+ (i == 0 ? "0" : "new C" + (i - 1) + "().v()") + " + Base.k(); }\n" + more + "}\n");
		}
		team = new RemoteFixture(temp, sources, LINK);
		harness = team.harness;
		ci = team.ci;
		relay = team.relay;
		developer = team.cloneDeveloper(temp.resolve("developer"));
		Map<String, String> change = new LinkedHashMap<>(Map.of("src/q/Base.java",
				"package q;\npublic class Base {\n\tpublic static int k(int... more) { return 1 + more.length; }\n}\n"));
		change.put("src/p/X.java", "package p;\npublic class X {\n\tA2 two;\n}\n");
		feat = ci.branch("feat", change);
		ci.git.checkout().setName("main").call();
	}

	@AfterEach
	void tearDown() throws Exception {
		team.close();
	}

	@Test
	void aSwitchAfterThePrefetchOnDemandAndWithoutBranchstateInOneRun() throws Exception {
		// CI publishes the state of feat
		team.startCi();
		ci.switchTo("feat", 0);
		team.publishHead();
		ci.switchTo("main", 0);
		team.endCi();

		// the developer's clone, built on main by JDT, then a git fetch: feat is prefetched
		project = team.startDeveloper(true);
		PrefetchTest.prefetcher().checkNow();
		PrefetchTest.awaitPrefetch();
		// a round trip to a branch at the same commit: the state of main is saved, as each switch measured finds it,
		// and the JVM has run a switch
		developer.git.branchCreate().setName("warm").call();
		developer.switchTo("warm", 0);
		developer.switchTo("main", 0);
		developer.git.fetch().call();
		try {
			harness.awaitEvent(developer.gitDir(), e -> e.kind() == StateEvent.Kind.FETCHED && feat.equals(e.commitId()));
		} catch (AssertionError e) {
			StringBuilder jobs = new StringBuilder();
			for (org.eclipse.core.runtime.jobs.Job job : org.eclipse.core.runtime.jobs.Job.getJobManager().find(null)) {
				jobs.append(job.getName()).append(" [").append(job.getClass().getName()).append(", state ")
						.append(job.getState()).append("]; ");
			}
			throw new AssertionError("jobs: " + jobs + " refs: "
					+ developer.git.getRepository().getRefDatabase().getRefs(), e);
		}
		PrefetchTest.awaitPrefetch();
		relay.takeRequests();

		List<String> figures = new ArrayList<>();
		String afterPrefetch = developer.switchTo("feat", 0);
		figures.add(figure("after the prefetch", afterPrefetch, relay.takeRequests()));
		assertEqualToCleanBuild();
		developer.switchTo("main", 0);

		harness.service.delete(harness.service.states(developer.gitDir()).stream()
				.filter(s -> s.commitId().equals(feat)).findFirst().orElseThrow());
		relay.takeRequests();
		String onDemand = developer.switchTo("feat", 0);
		List<String> onDemandRequests = relay.takeRequests();
		figures.add(figure("fetching on demand", onDemand, onDemandRequests));
		assertEqualToCleanBuild();
		developer.switchTo("main", 0);

		relay.takeRequests();
		String without = switchWithoutBranchstate("feat");
		figures.add(figure("without Branchstate (JDT builds the change)", without, relay.takeRequests()));
		assertEqualToCleanBuild();

		long size = harness.service.states(developer.gitDir()).stream().filter(st -> st.commitId().equals(feat))
				.mapToLong(StateInfo::size).sum();
		System.out.println("prefetch figures: " + CLASSES + " classes, state of feat " + size / 1024 + " KiB, link "
				+ (LINK == null ? "loopback" : LINK));
		figures.forEach(System.out::println);
		assertThat(figures.get(0)).as(afterPrefetch).contains(" 0 requests");
		assertThat(onDemandRequests).as(onDemand).hasSizeGreaterThanOrEqualTo(3);
		assertThat(afterPrefetch).contains("restored");
		assertThat(onDemand).contains("restored");
	}

	private static String figure(String how, String output, List<String> requests) {
		return "switch main -> feat " + how + ": total " + value(TOTAL, output) + " ms, build " + value(BUILD, output)
				+ " ms, " + requests.size() + " requests";
	}

	private static String value(Pattern pattern, String output) {
		Matcher m = pattern.matcher(output);
		return m.find() ? m.group(1) : "?";
	}

	private String switchWithoutBranchstate(String branch) throws Exception {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		Integer code = SwitchCommand.run(List.of(developer.workTree.toString(), SwitchCommand.WITHOUT_BRANCHSTATE, branch),
				new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(out, true, StandardCharsets.UTF_8));
		String output = out.toString(StandardCharsets.UTF_8);
		assertThat(code).as(output).isEqualTo(0);
		return output;
	}

	private void assertEqualToCleanBuild() throws Exception {
		JavaRepository.Build actual = JavaRepository.Build.of(project);
		JavaRepository.Build clean = developer.cleanBuild(temp);
		assertThat(clean.output()).hasSizeGreaterThan(CLASSES);
		assertThat(actual.differencesFrom(clean)).as("bin/ and markers against a clean build").isEmpty();
	}
}
