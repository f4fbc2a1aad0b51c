package dev.branchstate.install.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer.OrderAnnotation;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Installs Branchstate into a fresh copy of the built IDE from the built update-site zip, exactly as a user does
 * with the p2 director, and checks what a user would: every bundle resolved and active, the contributions
 * registered, the workbench starting, a terminal checkout restored, a Java switch handed to JDT; then installs again
 * (harmless) and uninstalls (gone, IDE still starts). The steps build on each other, hence the order.
 * <p>
 * All of it runs once per supported end of the range, the same site zip installed into each IDE: the newest release
 * (4.39, {@code releng/dev.branchstate.ide}) and the oldest supported one (4.33, {@code releng/dev.branchstate.ide.oldest},
 * the release the bundles are compiled against). Each row names the system property with the IDE's location and
 * whether the internal build manager and JDT of that release take the restored state ({@code true}: after an exact
 * restore JDT compiles nothing) or Branchstate falls back to today's protocol ({@code false}: JDT compiles the
 * checkout's changes, one warning in the Error Log).
 */
@ParameterizedClass(name = "{0}")
@CsvSource({ "Eclipse 4.39, branchstate.ide, true", "Eclipse 4.33 (oldest supported), branchstate.ide.oldest, true" })
@TestMethodOrder(OrderAnnotation.class)
class InstallFromUpdateSiteTest {

	private static final String FEATURE = "dev.branchstate.feature.feature.group";
	/** Branchstate for Java: the IDE has JDT, so a Java user installs it beside the main feature. */
	private static final String FEATURES = FEATURE + ",dev.branchstate.jdt.feature.feature.group";
	private static final List<String> BUNDLES = List.of("dev.branchstate.archive", "dev.branchstate.core",
			"dev.branchstate.ui", "dev.branchstate.jdt", "com.github.luben.zstd-jni");

	/** The Error Log's entry when the internal build manager of a release cannot be used (messages.properties). */
	private static final String INTERNALS_UNAVAILABLE = "Branchstate cannot read the builders' last built state on this platform";

	@TempDir
	static Path temp;

	@Parameter(0)
	String release;
	/** The system property holding the location of this release's IDE (set by the module's pom.xml). */
	@Parameter(1)
	String ideProperty;
	/** Whether this release takes a restored state (JDT compiles nothing), or Branchstate falls back safely. */
	@Parameter(2)
	boolean handsOffToJdt;

	/** The copy of each release's IDE (by its property) that its tests install into, under {@link #temp}. */
	private static final Map<String, EclipseInstallation> IDES = new HashMap<>();
	private static String siteRepository;

	private static Path siteZip;
	/** The fingerprint of the key the build signed the site with: the one key the installs trust. */
	private static String fingerprint;
	/**
	 * The director's options that make it install only what is PGP-signed by that key (jar-signed content would need
	 * a trusted certificate: Branchstate's site has none), and print which artifact is signed by which key.
	 */
	private static List<String> trustOnlyTheBuildKey;

	@BeforeAll
	static void findTheSiteZip() throws IOException {
		Path siteTarget = Path.of(System.getProperty("branchstate.site"));
		siteZip = SignedSite.zip(siteTarget);
		siteRepository = "jar:" + siteZip.toUri() + "!/";
		fingerprint = SignedSite.buildFingerprint(siteTarget);
		trustOnlyTheBuildKey = List.of("-trustSignedContentOnly", "-trustedPGPKeys", fingerprint, "-verboseTrust");
	}

	@Test
	@Order(1)
	void theStockIdeHasNoBranchstate() throws Exception {
		assertThat(ide().configuredBundles()).doesNotContainAnyElementsOf(BUNDLES);
		EclipseInstallation.Run status = ide().runApplication(dir("ws-before"), "dev.branchstate.core.app", "status");
		assertThat(status.exitCode()).as(status.output()).isNotZero();
		assertThat(status.output()).contains("dev.branchstate.core.app");
	}

	@Test
	@Order(2)
	void installsFromTheUpdateSiteZipWithTheIdesOwnDirectorTrustingOnlyTheSigningKey() throws Exception {
		EclipseInstallation.Run install = ide().director(trustOnlyTheBuildKey, "-installIU", siteRepository, FEATURES);
		assertThat(install.exitCode()).as(install.output()).isZero();
		assertThat(install.output()).contains("Operation completed");
		assertThat(ide().configuredBundles()).containsAll(BUNDLES);
		// what p2 checked: every artifact it fetched is PGP-signed by the build's key, none unsigned
		assertThat(artifactsUnder(install.output(), "The following artifacts are signed by PGP key " + fingerprint))
				.as(install.output()).containsExactlyInAnyOrder("org.eclipse.update.feature,dev.branchstate.feature",
						"org.eclipse.update.feature,dev.branchstate.jdt.feature", "osgi.bundle,dev.branchstate.archive",
						"osgi.bundle,dev.branchstate.core", "osgi.bundle,dev.branchstate.ui",
						"osgi.bundle,dev.branchstate.jdt", "osgi.bundle,com.github.luben.zstd-jni");
		assertThat(install.output()).doesNotContain("The following artifacts are unsigned");
	}

	@Test
	@Order(3)
	void everyBranchstateBundleIsActiveAndItsContributionsAreRegistered() throws Exception {
		EclipseInstallation.Run status = ide().runApplication(dir("ws-status"), "dev.branchstate.core.app", "status");
		assertThat(status.exitCode()).as(status.output()).isZero();
		assertThat(status.output()).containsPattern("bundle dev\\.branchstate\\.archive \\S+ ACTIVE")
				.containsPattern("bundle dev\\.branchstate\\.core \\S+ ACTIVE")
				.containsPattern("bundle dev\\.branchstate\\.ui \\S+ ACTIVE")
				.containsPattern("bundle dev\\.branchstate\\.jdt \\S+ ACTIVE")
				.contains("contribution dev.branchstate.core.contributors contributor dev.branchstate.jdt.buildstate"
						+ " from dev.branchstate.jdt")
				.contains("extension-point dev.branchstate.core.contributors registered")
				.contains("contribution org.eclipse.ui.commands command dev.branchstate.ui.saveState from dev.branchstate.ui");
	}

	@Test
	@Order(4)
	void installingTwiceIsHarmless() throws Exception {
		List<String> before = ide().configuredBundles();
		EclipseInstallation.Run again = ide().director("-installIU", siteRepository, FEATURES);
		assertThat(again.exitCode()).as(again.output()).isZero();
		assertThat(ide().configuredBundles()).containsExactlyInAnyOrderElementsOf(before);
		EclipseInstallation.Run status = ide().runApplication(dir("ws-status2"), "dev.branchstate.core.app", "status");
		assertThat(status.exitCode()).as(status.output()).isZero();
	}

	@Test
	@Order(5)
	void theWorkbenchStartsWithBranchstateInstalled() throws Exception {
		Path screenshot = screenshot("ide-with-branchstate.png");
		assertThat(ide().startWorkbench(dir("ws-workbench"), screenshot, Duration.ofMinutes(2), () -> {
		}))
				.as("workbench window of the IDE with Branchstate").isTrue();
		assertThat(screenshot).isNotEmptyFile();
		assertThat(dir("ws-workbench/.metadata/.log")).satisfiesAnyOf(
				log -> assertThat(log).doesNotExist(),
				log -> assertThat(Files.readString(log)).doesNotContain("dev.branchstate"));
	}

	/**
	 * The product's claim in the installed IDE: with the workbench running, a {@code git checkout} in a terminal
	 * brings back the derived files of the branch checked out, byte for byte, without touching tracked files.
	 */
	@Test
	@Order(6)
	void aTerminalCheckoutInTheRunningIdeRestoresTheDerivedFilesOfTheBranch() throws Exception {
		GitRepository repo = GitRepository.create(dir("switch-repo"));
		repo.write(".project", """
				<?xml version="1.0" encoding="UTF-8"?>
				<projectDescription><name>greetings</name><comment></comment><projects></projects>
				<buildSpec></buildSpec><natures></natures></projectDescription>
				""");
		repo.write("src/Greeting.java", "class Greeting { String text = \"main\"; }");
		repo.commitAll("main: greeting");
		repo.checkoutNewBranch("feature");
		repo.write("src/Greeting.java", "class Greeting { String text = \"feature\"; }");
		repo.write("src/Extra.java", "class Extra {}");
		repo.commitAll("feature: extra class");

		Path workspace = dir("ws-switch");
		// the state of feature: its derived bin/ as a build of feature leaves it
		repo.writeDerived("bin/Greeting.class", "compiled feature greeting");
		repo.writeDerived("bin/Extra.class", "compiled extra");
		runOk(workspace, "import", "--derived=bin", repo.dir().toString());
		runOk(workspace, "save", repo.dir().toString());
		// back on main, built: what the user has when they start the IDE
		repo.checkout("main");
		repo.deleteDerived("bin/Extra.class");
		repo.writeDerived("bin/Greeting.class", "compiled main greeting");
		runOk(workspace, "save", repo.dir().toString());

		Path screenshot = screenshot("branch-states-after-switch.png");
		boolean started = ide().startWorkbench(workspace, screenshot, Duration.ofMinutes(2), () -> {
			repo.checkout("feature"); // in a terminal, while the IDE runs
			repo.awaitDerived("bin/Extra.class", "compiled extra", Duration.ofSeconds(60));
		});
		assertThat(started).as("workbench window of the IDE with Branchstate").isTrue();
		assertThat(repo.readDerived("bin/Greeting.class")).isEqualTo("compiled feature greeting");
		assertThat(repo.readDerived("bin/Extra.class")).isEqualTo("compiled extra");
		assertThat(repo.status()).as("git status after the restore").isEmpty();
		assertThat(screenshot).isNotEmptyFile();
	}

	/**
	 * The Java switch in the installed IDE, with JDT's builder trace on: a Java project (the JRE container on its
	 * classpath, resolved by JDT Launching to the JDK the IDE runs on) built by JDT and saved on two branches; then one
	 * IDE session switches to main with Branchstate off (JDT compiles the change: the trace shows it, so the trace
	 * works on this release) and back to feature with Branchstate on (the exact state of feature restored). Where the
	 * release takes the restored state, JDT compiles nothing; where it does not, Branchstate falls back to today's
	 * protocol and says so once in the Error Log. Either way bin/ is feature's build, byte for byte.
	 */
	@Test
	@Order(7)
	void aJavaSwitchToAnExactStateIsHandedToJdtOrFallsBackSafely() throws Exception {
		GitRepository repo = GitRepository.create(dir("java-repo"));
		repo.write(".project", """
				<?xml version="1.0" encoding="UTF-8"?>
				<projectDescription><name>greeter</name><comment></comment><projects></projects>
				<buildSpec><buildCommand><name>org.eclipse.jdt.core.javabuilder</name><arguments></arguments></buildCommand></buildSpec>
				<natures><nature>org.eclipse.jdt.core.javanature</nature></natures></projectDescription>
				""");
		repo.write(".classpath", """
				<?xml version="1.0" encoding="UTF-8"?>
				<classpath><classpathentry kind="src" path="src"/><classpathentry kind="con" path="org.eclipse.jdt.launching.JRE_CONTAINER"/>
				<classpathentry kind="output" path="bin"/></classpath>
				""");
		repo.write("src/greet/Greeting.java", """
				package greet;
				public class Greeting { public String text() { return "main"; } }
				""");
		repo.write("src/greet/Main.java", """
				package greet;
				public class Main { public static void main(String[] args) { System.out.println(new Greeting().text()); } }
				""");
		repo.commitAll("main: a greeting");
		repo.checkoutNewBranch("feature");
		repo.write("src/greet/Greeting.java", """
				package greet;
				public class Greeting { public String text() { return "feature"; } public String loud() { return text().toUpperCase(); } }
				""");
		repo.write("src/greet/Main.java", """
				package greet;
				public class Main { public static void main(String[] args) { System.out.println(new Greeting().loud() + new Extra()); } }
				""");
		repo.write("src/greet/Extra.java", """
				package greet;
				class Extra { @Override public String toString() { return "!"; } }
				""");
		repo.commitAll("feature: a loud greeting");
		repo.checkout("main");

		Path workspace = dir("ws-java");
		runOk(workspace, "import", repo.dir().toString());
		runOk(workspace, "save", repo.dir().toString()); // JDT builds main first
		repo.checkout("feature"); // in a terminal, no IDE running
		runOk(workspace, "save", repo.dir().toString()); // the switch is handled at start; JDT builds feature
		Map<String, byte[]> featureBuild = files(repo.dir().resolve("bin"));
		assertThat(featureBuild).containsKeys("greet/Greeting.class", "greet/Main.class", "greet/Extra.class");

		Path errorLog = workspace.resolve(".metadata/.log");
		String logBefore = errorLog(errorLog);
		Path options = Files.writeString(dir("jdt.options"),
				"org.eclipse.jdt.core/debug=true\norg.eclipse.jdt.core/debug/builder=true\n");
		EclipseInstallation.Run run = ide().runApplication(workspace, List.of("-debug", options.toString()),
				"dev.branchstate.core.app", "switch", repo.dir().toString(), "--without-branchstate", "main",
				"--with-branchstate", "feature");
		assertThat(run.exitCode()).as(run.output()).isZero();
		int last = run.output().lastIndexOf("\ncheckout feature ");
		assertThat(last).as(run.output()).isPositive();
		String toMain = run.output().substring(0, last);
		String toFeature = run.output().substring(last);
		assertThat(compiled(toMain)).as("JDT's builder trace of the switch to main without Branchstate:\n" + toMain)
				.isPositive();
		Matcher result = Pattern.compile("result branch=feature .* restored_files=(\\d+) ").matcher(toFeature);
		assertThat(result.find()).as(toFeature).isTrue();
		assertThat(Long.parseLong(result.group(1))).as("files restored for feature").isPositive();
		String log = errorLog(errorLog);
		String sessionLog = log.startsWith(logBefore) ? log.substring(logBefore.length()) : log;
		if (handsOffToJdt) {
			assertThat(compiled(toFeature)).as(release + ": JDT compiles nothing after the exact restore:\n" + toFeature)
					.isZero();
			assertThat(log).doesNotContain(INTERNALS_UNAVAILABLE);
		} else {
			assertThat(compiled(toFeature)).as(release + ": the fallback, JDT compiles the checkout's changes:\n"
					+ toFeature).isPositive();
			assertThat(sessionLog.split(Pattern.quote(INTERNALS_UNAVAILABLE), -1))
					.as("one Error Log entry in the switch's session:\n" + sessionLog).hasSize(2);
		}
		Map<String, byte[]> restored = files(repo.dir().resolve("bin"));
		assertThat(restored.keySet()).containsExactlyElementsOf(featureBuild.keySet());
		for (Map.Entry<String, byte[]> e : featureBuild.entrySet()) {
			assertThat(restored.get(e.getKey())).as("bin/" + e.getKey()).isEqualTo(e.getValue());
		}
		assertThat(repo.status()).as("git status after the switch").isEmpty();
	}

	private static String errorLog(Path file) throws IOException {
		return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
	}

	/** @return the units JDT's builder trace says it compiled (one "About to compile" line each) */
	private static long compiled(String output) {
		return output.lines().filter(line -> line.contains("About to compile ")).count();
	}

	/** @return the files under the folder, by relative path, with their bytes */
	private static Map<String, byte[]> files(Path folder) throws IOException {
		Map<String, byte[]> files = new TreeMap<>();
		try (Stream<Path> walk = Files.walk(folder)) {
			for (Path file : (Iterable<Path>) walk.filter(Files::isRegularFile)::iterator) {
				files.put(folder.relativize(file).toString(), Files.readAllBytes(file));
			}
		}
		return files;
	}

	private void runOk(Path workspace, String... command) throws Exception {
		EclipseInstallation.Run run = ide().runApplication(workspace, "dev.branchstate.core.app", command);
		assertThat(run.exitCode()).as(String.join(" ", command) + ":\n" + run.output()).isZero();
	}

	/** @return this release's IDE: on first use a fresh copy of the built one, which no test has touched */
	private EclipseInstallation ide() throws IOException {
		EclipseInstallation ide = IDES.get(ideProperty);
		if (ide == null) {
			ide = EclipseInstallation.copyOf(Path.of(System.getProperty(ideProperty)), dir("eclipse"));
			IDES.put(ideProperty, ide);
		}
		return ide;
	}

	/** @return a folder or file of this release's run (workspaces, repositories, its IDE) */
	private Path dir(String name) {
		return temp.resolve(ideProperty).resolve(name);
	}

	/** @return where a screenshot of this release's IDE goes */
	private Path screenshot(String name) {
		return Path.of(System.getProperty("branchstate.screenshots"), ideProperty + "-" + name);
	}

	/**
	 * The same install from a copy of the site whose dev.branchstate.core has lost its PGP signature, into a fresh copy
	 * of the IDE: the director refuses it, names that artifact as unsigned, and installs nothing.
	 */
	@Test
	@Order(9)
	void anArtifactWithoutItsSignatureIsRefusedAndNamed() throws Exception {
		Path site = SignedSite.copyWithSignatureOf(siteZip, dir("site-core-unsigned"), "dev.branchstate.core", null, null);
		EclipseInstallation untrusted = untrustedIde();
		EclipseInstallation.Run install = untrusted.director(trustOnlyTheBuildKey, "-installIU", site.toUri().toString(),
				FEATURES);
		assertThat(install.exitCode()).as(install.output()).isNotZero();
		assertThat(install.output()).contains("Unsigned content is rejected. Installation cannot proceed.");
		assertThat(artifactsUnder(install.output(), "The following artifacts are unsigned")).as(install.output())
				.containsExactly("osgi.bundle,dev.branchstate.core");
		assertThat(untrusted.configuredBundles()).doesNotContainAnyElementsOf(BUNDLES);
	}

	/**
	 * The same install from a copy of the site whose dev.branchstate.core is signed by another key (a valid signature,
	 * the other key beside it): the director refuses it, names the other key and that artifact, and installs nothing.
	 */
	@Test
	@Order(10)
	void anArtifactSignedByAnotherKeyIsRefusedAndNamed() throws Exception {
		SignedSite.ForeignKey other = SignedSite.ForeignKey.generate();
		String core = SignedSite.artifacts(SignedSite.artifactsXml(siteZip)).stream()
				.filter(a -> a.id().equals("dev.branchstate.core")).findFirst().orElseThrow().file();
		Path site = SignedSite.copyWithSignatureOf(siteZip, dir("site-core-other-key"), "dev.branchstate.core",
				other.sign(SignedSite.read(siteZip, core)), other.armoredPublicKey());
		EclipseInstallation untrusted = untrustedIde();
		EclipseInstallation.Run install = untrusted.director(trustOnlyTheBuildKey, "-installIU", site.toUri().toString(),
				FEATURES);
		assertThat(install.exitCode()).as(install.output()).isNotZero();
		assertThat(install.output()).contains("One or more PGP keys are not trusted.");
		assertThat(artifactsUnder(install.output(), "The following artifacts are signed by PGP key " + other.fingerprint()))
				.as(install.output()).containsExactly("osgi.bundle,dev.branchstate.core");
		assertThat(artifactsUnder(install.output(), "The following artifacts are signed by PGP key " + fingerprint))
				.as(install.output()).doesNotContain("osgi.bundle,dev.branchstate.core");
		assertThat(untrusted.configuredBundles()).doesNotContainAnyElementsOf(BUNDLES);
	}

	/**
	 * @return the artifacts ({@code classifier,id}, without the version) the director's trust report lists under the
	 *         heading: the indented lines {@code "  classifier,id,version -> file"} that follow it
	 */
	private static List<String> artifactsUnder(String output, String heading) {
		List<String> artifacts = new java.util.ArrayList<>();
		boolean in = false;
		for (String line : output.lines().toList()) {
			if (line.equals(heading)) {
				in = true;
			} else if (in && line.startsWith("  ") && line.contains(" -> ")) {
				String key = line.strip().substring(0, line.strip().indexOf(" -> "));
				artifacts.add(key.substring(0, key.lastIndexOf(',')));
			} else {
				in = false;
			}
		}
		return artifacts;
	}

	/** @return a second fresh copy of this release's IDE, for the installs that must fail */
	private EclipseInstallation untrustedIde() throws IOException {
		String key = ideProperty + ".untrusted";
		EclipseInstallation ide = IDES.get(key);
		if (ide == null) {
			ide = EclipseInstallation.copyOf(Path.of(System.getProperty(ideProperty)), dir("eclipse-untrusted"));
			IDES.put(key, ide);
		}
		return ide;
	}

	@Test
	@Order(8)
	void uninstallRemovesItAndTheIdeStillStarts() throws Exception {
		EclipseInstallation.Run uninstall = ide().director("-uninstallIU", siteRepository, FEATURES);
		assertThat(uninstall.exitCode()).as(uninstall.output()).isZero();
		assertThat(ide().configuredBundles()).doesNotContainAnyElementsOf(BUNDLES);
		EclipseInstallation.Run status = ide().runApplication(dir("ws-after"), "dev.branchstate.core.app", "status");
		assertThat(status.exitCode()).as(status.output()).isNotZero();
		Path screenshot = screenshot("ide-after-uninstall.png");
		assertThat(ide().startWorkbench(dir("ws-uninstalled"), screenshot, Duration.ofMinutes(2), () -> {
		}))
				.as("workbench window of the IDE after uninstalling Branchstate").isTrue();
	}
}
