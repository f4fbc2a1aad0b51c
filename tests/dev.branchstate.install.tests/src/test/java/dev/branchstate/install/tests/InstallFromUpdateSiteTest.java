package dev.branchstate.install.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer.OrderAnnotation;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Installs Branchstate into a fresh copy of the built IDE from the built update-site zip, exactly as a user does
 * with the p2 director, and checks what a user would: every bundle resolved and active, the contributions
 * registered, the workbench starting; then installs again (harmless) and uninstalls (gone, IDE still starts).
 * The steps build on each other, hence the order.
 */
@TestMethodOrder(OrderAnnotation.class)
class InstallFromUpdateSiteTest {

	private static final String FEATURE = "dev.branchstate.feature.feature.group";
	/** Branchstate for Java: the IDE has JDT, so a Java user installs it beside the main feature. */
	private static final String FEATURES = FEATURE + ",dev.branchstate.jdt.feature.feature.group";
	private static final List<String> BUNDLES = List.of("dev.branchstate.archive", "dev.branchstate.core",
			"dev.branchstate.ui", "dev.branchstate.jdt", "com.github.luben.zstd-jni");

	@TempDir
	static Path temp;

	private static EclipseInstallation ide;
	private static String siteRepository;

	@BeforeAll
	static void copyTheBuiltIde() throws IOException {
		ide = EclipseInstallation.copyOf(Path.of(System.getProperty("branchstate.ide")), temp.resolve("eclipse"));
		Path siteTarget = Path.of(System.getProperty("branchstate.site"));
		Path zip;
		try (Stream<Path> files = Files.list(siteTarget)) {
			zip = files.filter(p -> p.getFileName().toString().matches("dev\\.branchstate\\.site-.*\\.zip")).findFirst()
					.orElseThrow(() -> new IllegalStateException("No update-site zip in " + siteTarget
							+ ": build releng/dev.branchstate.site first"));
		}
		siteRepository = "jar:" + zip.toUri() + "!/";
	}

	@Test
	@Order(1)
	void theStockIdeHasNoBranchstate() throws Exception {
		assertThat(ide.configuredBundles()).doesNotContainAnyElementsOf(BUNDLES);
		EclipseInstallation.Run status = ide.runApplication(temp.resolve("ws-before"), "dev.branchstate.core.app", "status");
		assertThat(status.exitCode()).as(status.output()).isNotZero();
		assertThat(status.output()).contains("dev.branchstate.core.app");
	}

	@Test
	@Order(2)
	void installsFromTheUpdateSiteZipWithTheIdesOwnDirector() throws Exception {
		EclipseInstallation.Run install = ide.director("-installIU", siteRepository, FEATURES);
		assertThat(install.exitCode()).as(install.output()).isZero();
		assertThat(install.output()).contains("Operation completed");
		assertThat(ide.configuredBundles()).containsAll(BUNDLES);
	}

	@Test
	@Order(3)
	void everyBranchstateBundleIsActiveAndItsContributionsAreRegistered() throws Exception {
		EclipseInstallation.Run status = ide.runApplication(temp.resolve("ws-status"), "dev.branchstate.core.app", "status");
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
		List<String> before = ide.configuredBundles();
		EclipseInstallation.Run again = ide.director("-installIU", siteRepository, FEATURES);
		assertThat(again.exitCode()).as(again.output()).isZero();
		assertThat(ide.configuredBundles()).containsExactlyInAnyOrderElementsOf(before);
		EclipseInstallation.Run status = ide.runApplication(temp.resolve("ws-status2"), "dev.branchstate.core.app", "status");
		assertThat(status.exitCode()).as(status.output()).isZero();
	}

	@Test
	@Order(5)
	void theWorkbenchStartsWithBranchstateInstalled() throws Exception {
		Path screenshot = Path.of(System.getProperty("branchstate.screenshots"), "ide-with-branchstate.png");
		assertThat(ide.startWorkbench(temp.resolve("ws-workbench"), screenshot, Duration.ofMinutes(2), () -> {
		}))
				.as("workbench window of the IDE with Branchstate").isTrue();
		assertThat(screenshot).isNotEmptyFile();
		assertThat(temp.resolve("ws-workbench/.metadata/.log")).satisfiesAnyOf(
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
		GitRepository repo = GitRepository.create(temp.resolve("switch-repo"));
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

		Path workspace = temp.resolve("ws-switch");
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

		Path screenshot = Path.of(System.getProperty("branchstate.screenshots"), "branch-states-after-switch.png");
		boolean started = ide.startWorkbench(workspace, screenshot, Duration.ofMinutes(2), () -> {
			repo.checkout("feature"); // in a terminal, while the IDE runs
			repo.awaitDerived("bin/Extra.class", "compiled extra", Duration.ofSeconds(60));
		});
		assertThat(started).as("workbench window of the IDE with Branchstate").isTrue();
		assertThat(repo.readDerived("bin/Greeting.class")).isEqualTo("compiled feature greeting");
		assertThat(repo.readDerived("bin/Extra.class")).isEqualTo("compiled extra");
		assertThat(repo.status()).as("git status after the restore").isEmpty();
		assertThat(screenshot).isNotEmptyFile();
	}

	private void runOk(Path workspace, String... command) throws Exception {
		EclipseInstallation.Run run = ide.runApplication(workspace, "dev.branchstate.core.app", command);
		assertThat(run.exitCode()).as(String.join(" ", command) + ":\n" + run.output()).isZero();
	}

	@Test
	@Order(7)
	void uninstallRemovesItAndTheIdeStillStarts() throws Exception {
		EclipseInstallation.Run uninstall = ide.director("-uninstallIU", siteRepository, FEATURES);
		assertThat(uninstall.exitCode()).as(uninstall.output()).isZero();
		assertThat(ide.configuredBundles()).doesNotContainAnyElementsOf(BUNDLES);
		EclipseInstallation.Run status = ide.runApplication(temp.resolve("ws-after"), "dev.branchstate.core.app", "status");
		assertThat(status.exitCode()).as(status.output()).isNotZero();
		Path screenshot = Path.of(System.getProperty("branchstate.screenshots"), "ide-after-uninstall.png");
		assertThat(ide.startWorkbench(temp.resolve("ws-uninstalled"), screenshot, Duration.ofMinutes(2), () -> {
		}))
				.as("workbench window of the IDE after uninstalling Branchstate").isTrue();
	}
}
