package dev.branchstate.core.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.equinox.app.IApplication;
import org.eclipse.equinox.app.IApplicationContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;

import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.app.BranchstateApplication;

/** The headless application's commands, run in this runtime with the store of the fixture. */
class ApplicationTest {

	@TempDir
	Path temp;

	private Fixtures f;
	private String out;
	private String err;

	@BeforeEach
	void setUp() throws Exception {
		f = new Fixtures(temp, "app" + System.nanoTime());
	}

	@AfterEach
	void tearDown() throws Exception {
		f.close();
	}

	private Object run(String... args) throws Exception {
		ByteArrayOutputStream o = new ByteArrayOutputStream();
		ByteArrayOutputStream e = new ByteArrayOutputStream();
		PrintStream oldOut = System.out;
		PrintStream oldErr = System.err;
		System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
		System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
		try {
			return new BranchstateApplication().start(new Context(args));
		} finally {
			System.setOut(oldOut);
			System.setErr(oldErr);
			out = o.toString(StandardCharsets.UTF_8);
			err = e.toString(StandardCharsets.UTF_8);
		}
	}

	@Test
	void saveListRestoreVerify() throws Exception {
		byte[] a = Fixtures.random(20_000, 1);
		f.output(Map.of("A.class", a));
		String repo = f.workTree.toString();

		assertThat(run("save", repo)).isEqualTo(IApplication.EXIT_OK);
		String commit = f.git.getRepository().resolve("HEAD").name();
		assertThat(out).startsWith("saved " + commit);
		assertThat(run("list", repo)).isEqualTo(IApplication.EXIT_OK);
		assertThat(out).contains("state " + commit + " branches=main").contains("1 state(s)");

		Files.write(f.workTree.resolve("bin/A.class"), new byte[] { 1 });
		assertThat(run("restore", repo)).isEqualTo(IApplication.EXIT_OK);
		assertThat(out).startsWith("restored " + commit).contains("written=1");
		assertThat(Files.readAllBytes(f.workTree.resolve("bin/A.class"))).isEqualTo(a);

		assertThat(run("verify", repo)).isEqualTo(IApplication.EXIT_OK);
		assertThat(out).contains("ok " + commit);
		StateInfo state = f.service.states(f.gitDir()).get(0);
		try (RandomAccessFile raf = new RandomAccessFile(state.archive().toFile(), "rw")) {
			raf.setLength(raf.length() / 2);
		}
		assertThat(run("verify", repo)).isEqualTo(1);
		assertThat(out).contains("corrupt " + commit);
		assertThat(run("restore", repo)).isEqualTo(1);
		assertThat(err.lines().filter(l -> l.startsWith("branchstate: "))).hasSize(1);
	}

	@Test
	void errorsAreOneLineWithMeaningfulExitCodes() throws Exception {
		assertThat(run("frobnicate")).isEqualTo(2);
		assertThat(err.lines()).singleElement().satisfies(l -> assertThat(l).startsWith("branchstate: unknown command"));
		assertThat(run()).isEqualTo(2);
		assertThat(run("save", temp.resolve("missing").toString())).isEqualTo(3);
		assertThat(err.lines()).singleElement().satisfies(l -> assertThat(l).contains("no such directory"));
		assertThat(run("restore", f.workTree.toString(), "0123456789012345678901234567890123456789")).isEqualTo(3);
		assertThat(run("restore", f.workTree.toString())).isEqualTo(3);
		assertThat(err).contains("no state stored");
		Path notARepo = Files.createDirectories(temp.resolve("plain"));
		assertThat(run("list", notARepo.toString())).isEqualTo(3);
	}

	@Test
	void importCreatesAGeneralProjectForARepositoryWithoutEclipseProjects() throws Exception {
		Path other = Files.createDirectories(temp.resolve("plainrepo"));
		try (org.eclipse.jgit.api.Git git = org.eclipse.jgit.api.Git.init().setDirectory(other.toFile()).call()) {
			Files.writeString(other.resolve("file.txt"), "x");
			git.add().addFilepattern(".").call();
			git.commit().setMessage("c").setAuthor("t", "t@example.org").setCommitter("t", "t@example.org").call();
		}
		assertThat(run("import", other.toString())).isEqualTo(IApplication.EXIT_OK);
		IProject project = Fixtures.workspace().getRoot().getProject("plainrepo");
		try {
			assertThat(project.isOpen()).isTrue();
			assertThat(project.getLocation().toFile().toPath()).isEqualTo(other.toRealPath());
			assertThat(project.getFile("file.txt").exists()).isTrue();
			assertThat(run("import", other.toString())).isEqualTo(IApplication.EXIT_OK);
			assertThat(out).contains("imported 0 project(s)");
		} finally {
			project.delete(IResource.NEVER_DELETE_PROJECT_CONTENT | IResource.FORCE, null);
		}
	}

	private static final class Context implements IApplicationContext {
		private final String[] args;

		Context(String[] args) {
			this.args = args;
		}

		@Override
		public Map<String, Object> getArguments() {
			return Map.of(IApplicationContext.APPLICATION_ARGS, args);
		}

		@Override
		public void applicationRunning() {
		}

		@Override
		public String getBrandingApplication() {
			return null;
		}

		@Override
		public String getBrandingName() {
			return null;
		}

		@Override
		public String getBrandingDescription() {
			return null;
		}

		@Override
		public String getBrandingId() {
			return null;
		}

		@Override
		public String getBrandingProperty(String key) {
			return null;
		}

		@Override
		public Bundle getBrandingBundle() {
			return null;
		}

		@Override
		public void setResult(Object result, IApplication application) {
		}
	}
}
