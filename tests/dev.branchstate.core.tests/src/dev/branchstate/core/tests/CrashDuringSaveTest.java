package dev.branchstate.core.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.service.StateService;
import dev.branchstate.core.internal.store.StateStore;

/**
 * kill -9 of a separate JVM that runs the headless application in the middle of a save: the store keeps no entry
 * for the broken state, earlier states stay intact, and the store is usable after.
 */
class CrashDuringSaveTest {

	@TempDir
	Path temp;

	@Test
	void aSaveKilledMidwayLeavesNoCatalogEntryAndEarlierStatesIntact() throws Exception {
		try (Fixtures f = new Fixtures(temp, "crash" + System.nanoTime())) {
			f.git.checkout().setCreateBranch(true).setName("first").call();
			f.output(Map.of("A.class", Fixtures.random(10_000, 1)));
			StateInfo earlier = f.service.save(f.gitDir(), null);
			byte[] earlierArchive = Files.readAllBytes(earlier.archive());

			f.git.checkout().setCreateBranch(true).setName("second").call();
			f.write("src/C.java", "class C {}\n");
			RevCommit second = f.commit("second");
			// enough data that a save at the slowest level on one thread takes seconds
			StringBuilder text = new StringBuilder();
			for (int i = 0; i < 40_000; i++) {
				text.append("line ").append(i * 7919 % 100_003).append(" of some derived output ").append(i % 97)
						.append('\n');
			}
			byte[] chunk = text.toString().getBytes(StandardCharsets.UTF_8);
			for (int i = 0; i < 24; i++) {
				f.write("bin/gen/G" + i + ".class", chunk);
			}

			Path workspace = temp.resolve("child-ws");
			Path settings = Files.createDirectories(
					workspace.resolve(".metadata/.plugins/org.eclipse.core.runtime/.settings"));
			Files.writeString(settings.resolve(BranchstatePreferences.NODE + ".prefs"),
					"eclipse.preferences.version=1\n" + BranchstatePreferences.STORE_LOCATION + "="
							+ f.storeDir.toString().replace("\\", "\\\\") + "\n" + BranchstatePreferences.AUTO_SWITCH
							+ "=false\n" + BranchstatePreferences.COMPRESSION_LEVEL + "=19\n"
							+ BranchstatePreferences.WORKER_THREADS + "=1\n");
			// that workspace has no derived flags: the output folder is named by the preference

			Process importer = headless(workspace, "import", f.workTree.toString(), "--derived=bin").start();
			assertThat(importer.waitFor(120, TimeUnit.SECONDS)).isTrue();
			String importOutput = Files.readString(temp.resolve("import.log"));
			assertThat(importer.exitValue()).as(importOutput).isZero();

			Process saver = headless(workspace, "save", f.workTree.toString()).start();
			Path states = f.storeDir.resolve("states");
			Optional<Path> partial = Optional.empty();
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
			while (saver.isAlive() && System.nanoTime() < deadline) {
				partial = temporaryArchive(states);
				if (partial.isPresent() && Files.size(partial.get()) > 64 * 1024) {
					break;
				}
				Thread.sleep(5);
			}
			assertThat(saver.isAlive()).as("the save must still be running when it is killed: "
					+ Files.readString(temp.resolve("save.log"))).isTrue();
			// the running writer's file is never taken for a leftover, however old it looks
			Files.setLastModifiedTime(partial.get(), FileTime.from(Instant.now().minusSeconds(3600)));
			assertThat(new StateStore(f.storeDir).cleanOrphans()).doesNotContain(partial.get());
			assertThat(partial.get()).exists();
			saver.destroyForcibly(); // SIGKILL
			assertThat(saver.waitFor(30, TimeUnit.SECONDS)).isTrue();
			assertThat(partial).isPresent();

			// "after restart": a fresh store instance on the same folder
			StateStore store = new StateStore(f.storeDir);
			assertThat(store.states()).extracting(StateInfo::commitId).containsExactly(earlier.commitId());
			assertThat(Files.readAllBytes(earlier.archive())).isEqualTo(earlierArchive);
			f.service.verify(store.states().get(0), null);

			// the killed writer's file goes when the IDE starts again, even right after the crash: a file no writer
			// holds a lock on is a leftover, and one written within the last 2 s (perhaps created and not locked
			// yet) is looked at again once that is over
			Files.setLastModifiedTime(partial.get(), FileTime.from(Instant.now())); // as if written just now
			f.service.setStoreLocation(f.storeDir);
			f.service.store();
			Job.getJobManager().join(StateService.LEFTOVERS_FAMILY, null);
			assertThat(partial.get()).doesNotExist();
			assertThat(temporaryArchive(states)).as("the killed save's hold on its archive's name").isEmpty();

			// usable: a new save of the same commit works
			StateInfo again = f.service.save(f.gitDir(), null);
			assertThat(again.commitId()).isEqualTo(second.name());
			assertThat(new StateStore(f.storeDir).states()).extracting(StateInfo::commitId)
					.containsExactlyInAnyOrder(earlier.commitId(), second.name());
			f.service.verify(again, null);
		}
	}

	private static long sizeOrZero(Path file) {
		try {
			return Files.size(file);
		} catch (IOException e) {
			return 0; // gone meanwhile
		}
	}

	private static Optional<Path> temporaryArchive(Path states) throws Exception {
		if (!Files.isDirectory(states)) {
			return Optional.empty();
		}
		try (Stream<Path> files = Files.walk(states)) {
			// the writer's file: the biggest (the save's hold on the archive's name is an empty one)
			return files.filter(p -> p.getFileName().toString().contains(".tmp-"))
					.max(Comparator.comparingLong(CrashDuringSaveTest::sizeOrZero));
		}
	}

	/**
	 * A process running the headless application through the Equinox launcher (which exits with the application's
	 * exit code) on a copy of this test runtime's OSGi configuration. The bundles built by the reactor are copied,
	 * so that the child does not depend on build folders that may change meanwhile.
	 */
	private ProcessBuilder headless(Path workspace, String... args) throws Exception {
		Path configuration = Files.createDirectories(temp.resolve("child-config-" + System.nanoTime()));
		Path jars = Files.createDirectories(configuration.resolve("jars"));
		Path ownConfiguration = Path.of(URI.create(System.getProperty("osgi.configuration.area")));
		String ini = Files.readString(ownConfiguration.resolve("config.ini"));
		Matcher m = Pattern.compile("reference\\\\:file\\\\:(/[^,@]*/target/[^,@/]*\\.jar)").matcher(ini);
		StringBuilder rewritten = new StringBuilder();
		while (m.find()) {
			Path jar = Path.of(m.group(1));
			Path copy = jars.resolve(jar.getFileName());
			Files.copy(jar, copy, StandardCopyOption.REPLACE_EXISTING);
			m.appendReplacement(rewritten, Matcher.quoteReplacement("reference\\:file\\:" + copy));
		}
		m.appendTail(rewritten);
		Files.writeString(configuration.resolve("config.ini"), rewritten);
		Path framework = new File(URI.create(System.getProperty("osgi.framework"))).toPath();
		// <repo>/org/eclipse/platform/org.eclipse.osgi/<version>/org.eclipse.osgi-<version>.jar
		Path platformGroup = framework.getParent().getParent().getParent();
		Path launcher;
		try (Stream<Path> s = Files.walk(platformGroup.resolve("org.eclipse.equinox.launcher"), 2)) {
			launcher = s.filter(p -> p.getFileName().toString().matches("org\\.eclipse\\.equinox\\.launcher-[0-9.]+\\.jar"))
					.findFirst().orElseThrow();
		}
		String java = ProcessHandle.current().info().command().orElse("java");
		List<String> command = new ArrayList<>(List.of(java, "-Xmx512m",
				"-Dosgi.install.area=" + System.getProperty("osgi.install.area"), "-cp", launcher.toString(),
				"org.eclipse.equinox.launcher.Main", "-configuration", configuration.toUri().toString(),
				"-application", "dev.branchstate.core.app", "-data", workspace.toString(), "-nosplash"));
		command.addAll(List.of(args));
		return new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(temp.resolve(args[0] + ".log").toFile());
	}
}
