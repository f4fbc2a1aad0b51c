package dev.branchstate.core.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.ISaveContext;
import org.eclipse.core.resources.ISaveParticipant;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.equinox.app.IApplication;
import org.eclipse.equinox.app.IApplicationContext;
import org.eclipse.equinox.security.storage.ISecurePreferences;
import org.eclipse.equinox.security.storage.SecurePreferencesFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.app.BackgroundJobs;
import dev.branchstate.core.internal.app.BranchstateApplication;
import dev.branchstate.core.internal.remote.ManifestSigner;
import dev.branchstate.core.internal.remote.RemoteConfiguration;
import dev.branchstate.core.internal.switching.SaveAheadJob;

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
		assertThat(line("saved ")).startsWith("saved " + commit);
		assertThat(run("list", repo)).isEqualTo(IApplication.EXIT_OK);
		assertThat(out).contains("state " + commit + " branches=main").contains("1 state(s)");

		Files.write(f.workTree.resolve("bin/A.class"), new byte[] { 1 });
		assertThat(run("restore", repo)).isEqualTo(IApplication.EXIT_OK);
		assertThat(line("restored ")).startsWith("restored " + commit).contains("written=1");
		assertThat(Files.readAllBytes(f.workTree.resolve("bin/A.class"))).isEqualTo(a);

		// several commits: each restored in turn in the one session, a line each
		Files.write(f.workTree.resolve("bin/A.class"), new byte[] { 2 });
		assertThat(run("restore", repo, "HEAD", commit)).isEqualTo(IApplication.EXIT_OK);
		List<String> restored = out.lines().filter(l -> l.startsWith("restored ")).toList();
		assertThat(restored).hasSize(2).allMatch(l -> l.startsWith("restored " + commit));
		assertThat(restored.get(0)).contains(" written=1 ");
		assertThat(restored.get(1)).contains(" written=0 ");
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

	/**
	 * The remote commands as CI and a developer use them: a key pair, publish (credentials from secure storage, the
	 * store from the command line), the published list, then a fetch into the emptied local store and a restore of
	 * it; a fetch pinned to another key is refused in one line.
	 */
	@Test
	void remoteKeysPublishPublishedAndFetch() throws Exception {
		byte[] a = Fixtures.random(20_000, 3);
		f.output(Map.of("A.class", a));
		String repo = f.workTree.toString();
		String commit = f.git.getRepository().resolve("HEAD").name();
		ISecurePreferences secure = SecurePreferencesFactory.getDefault();
		try (S3Server server = new S3Server(temp.resolve("s3"))) {
			RemoteConfiguration.storeCredentials(secure, server.credentials);
			Path keys = temp.resolve("keys");
			assertThat(run("remote-keys", keys.toString())).isEqualTo(IApplication.EXIT_OK);
			assertThat(line("pin remotePublicKey=")).hasSizeGreaterThan(40);
			assertThat(Files.getPosixFilePermissions(keys.resolve("branchstate-signing.pem")).toString())
					.isEqualTo("[OWNER_READ, OWNER_WRITE]");
			String[] store = { "--endpoint=" + server.endpoint, "--bucket=" + S3Server.BUCKET, "--prefix=ci",
					"--path-style" };
			String signingKey = "--signing-key=" + keys.resolve("branchstate-signing.pem");
			String publicKey = "--public-key=" + keys.resolve("branchstate-signing.pub.pem");

			assertThat(run("save", repo)).isEqualTo(IApplication.EXIT_OK);
			assertThat(run(concat(new String[] { "publish", repo, signingKey }, store))).as(err)
					.isEqualTo(IApplication.EXIT_OK);
			assertThat(line("published ")).startsWith("published " + commit + " size=");
			assertThat(run(concat(new String[] { "publish", repo, signingKey }, store))).isEqualTo(IApplication.EXIT_OK);
			assertThat(line("already published ")).startsWith("already published " + commit);
			assertThat(run(concat(new String[] { "published", repo }, store))).isEqualTo(IApplication.EXIT_OK);
			assertThat(out).contains("published " + commit + " local").contains("1 published state(s)");

			assertThat(run("delete", repo)).isEqualTo(IApplication.EXIT_OK);
			Files.write(f.workTree.resolve("bin/A.class"), new byte[] { 1 });
			String otherKey = "--public-key=" + ManifestSigner.oneLine(ManifestSigner.generate().getPublic());
			assertThat(run(concat(new String[] { "fetch", repo, otherKey }, store))).isEqualTo(1);
			assertThat(err.lines()).singleElement().satisfies(l -> assertThat(l).startsWith("branchstate: ")
					.contains("manifests/" + commit).contains("signature does not match the pinned public key"));
			assertThat(f.service.states(f.gitDir())).isEmpty();

			assertThat(run(concat(new String[] { "fetch", repo, publicKey }, store))).as(err)
					.isEqualTo(IApplication.EXIT_OK);
			assertThat(line("fetched ")).startsWith("fetched " + commit + " size=");
			assertThat(run("restore", repo)).isEqualTo(IApplication.EXIT_OK);
			assertThat(Files.readAllBytes(f.workTree.resolve("bin/A.class"))).isEqualTo(a);
		} finally {
			f.service.remote().setSettings(null);
			RemoteConfiguration.storeCredentials(secure, null);
		}
	}

	private static String[] concat(String[] a, String[] b) {
		String[] result = java.util.Arrays.copyOf(a, a.length + b.length);
		System.arraycopy(b, 0, result, a.length, b.length);
		return result;
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

	/** A general project's .project, its name to format in. */
	private static final String DESCRIPTION = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<projectDescription><name>%s"
			+ "</name><comment></comment><projects></projects><buildSpec></buildSpec><natures></natures>"
			+ "</projectDescription>\n";

	/**
	 * @return a Git repository in {@code folder} (under the test's temporary folder) of general projects, one folder
	 *         each with its .project and a file.txt, committed
	 */
	private Path repositoryOfProjects(String folder, String... names) throws Exception {
		Path repository = Files.createDirectories(temp.resolve(folder));
		for (String name : names) {
			Files.createDirectories(repository.resolve(name));
			Files.writeString(repository.resolve(name).resolve(".project"), DESCRIPTION.formatted(name));
			Files.writeString(repository.resolve(name).resolve("file.txt"), name);
		}
		try (org.eclipse.jgit.api.Git git = org.eclipse.jgit.api.Git.init().setDirectory(repository.toFile()).call()) {
			git.add().addFilepattern(".").call();
			git.commit().setMessage("c").setAuthor("t", "t@example.org").setCommitter("t", "t@example.org").call();
		}
		return repository;
	}

	/**
	 * {@code import} after a checkout made while the IDE was closed, which the headless application does not handle as a
	 * switch: core.resources has closed the project whose description the checkout deleted, and the import takes it out
	 * of the workspace (its other files stay on disk); an open project whose description is missing is Eclipse's to
	 * write again (a repository that ignores .project) and stays. When the description is back, the project is
	 * imported again.
	 */
	@Test
	void importRemovesAClosedProjectWhoseDescriptionIsGoneAndImportsItAgainWhenItIsBack() throws Exception {
		// (a third project keeps its description: with none left, the import would make a general project at the root)
		Path other = repositoryOfProjects("tworepo", "apptest-kept", "apptest-gone", "apptest-third");
		IProject kept = Fixtures.workspace().getRoot().getProject("apptest-kept");
		IProject gone = Fixtures.workspace().getRoot().getProject("apptest-gone");
		IProject third = Fixtures.workspace().getRoot().getProject("apptest-third");
		try {
			assertThat(run("import", other.toString())).isEqualTo(IApplication.EXIT_OK);
			assertThat(kept.isOpen()).isTrue();
			assertThat(gone.isOpen()).isTrue();
			Path goneDescription = other.resolve("apptest-gone/.project");
			Path keptDescription = other.resolve("apptest-kept/.project");
			gone.close(null); // (as core.resources closes it at start-up when its description is missing)
			Files.delete(goneDescription);
			Files.delete(keptDescription);

			assertThat(run("import", other.toString())).isEqualTo(IApplication.EXIT_OK);
			assertThat(out).contains("removed apptest-gone ", "imported 0 project(s)").doesNotContain("removed apptest-kept");
			assertThat(gone.exists()).as("the closed project whose description is gone").isFalse();
			assertThat(kept.isOpen()).as("the open one").isTrue();
			assertThat(other.resolve("apptest-gone/file.txt")).as("the removed project's other files").hasContent("apptest-gone");
			Fixtures.workspace().save(true, null);
			assertThat(goneDescription).as("the removed project's description, after a save").doesNotExist();
			assertThat(keptDescription).as("the open project's description, written again by the save").exists();

			Files.writeString(goneDescription, DESCRIPTION.formatted("apptest-gone"));
			assertThat(run("import", other.toString())).isEqualTo(IApplication.EXIT_OK);
			assertThat(gone.isOpen()).as("the project imported again").isTrue();
		} finally {
			for (IProject p : List.of(kept, gone, third)) {
				if (p.exists()) {
					p.delete(IResource.NEVER_DELETE_PROJECT_CONTENT | IResource.FORCE, null);
				}
			}
		}
	}

	/**
	 * {@code import} after an IDE was killed between a project's removal (a checkout to a branch without it: the
	 * switch removes it, and core.resources deletes its metadata area at once) and core.resources' next snapshot: it
	 * started with the project in its tree, closed at its default location, without a metadata area or a description.
	 * When a checkout brings the project back, the import removes that project and imports the one of the work tree.
	 * Found by the soak (seed 11, step 273, after a kill during the switch of step 269): the import failed with "Could
	 * not write metadata for '/soak-extra'", and the project could not be imported again.
	 */
	@Test
	void importReplacesAClosedProjectOfTheSameNameThatAKillLeftWithoutMetadata() throws Exception {
		Path other = repositoryOfProjects("zombierepo", "apptest-back", "apptest-stays");
		IProject back = Fixtures.workspace().getRoot().getProject("apptest-back");
		IProject stays = Fixtures.workspace().getRoot().getProject("apptest-stays");
		try {
			// the state the killed IDE starts in: the project in the tree, closed at its default location, its folder
			// there and its metadata area gone
			back.create(null);
			back.close(null);
			Path defaultLocation = back.getLocation().toPath();
			Path metadata = Fixtures.workspace().getRoot().getLocation().toPath()
					.resolve(".metadata/.plugins/org.eclipse.core.resources/.projects/apptest-back");
			for (Path gone : List.of(defaultLocation, metadata)) {
				try (var files = Files.walk(gone)) {
					for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
						Files.delete(f);
					}
				}
			}

			assertThat(run("import", other.toString())).as(err).isEqualTo(IApplication.EXIT_OK);
			assertThat(out).contains("removed apptest-back ", "imported 2 project(s)");
			assertThat(back.isOpen()).as("the project of the work tree, imported").isTrue();
			assertThat(back.getLocation().toPath()).isEqualTo(other.resolve("apptest-back").toRealPath());
			assertThat(back.getFile("file.txt").exists()).isTrue();
			assertThat(stays.isOpen()).isTrue();
			Fixtures.workspace().save(true, null); // (its metadata written: no "Could not write metadata")
		} finally {
			for (IProject p : List.of(back, stays)) {
				if (p.exists()) {
					p.delete(IResource.NEVER_DELETE_PROJECT_CONTENT | IResource.FORCE, null);
				}
			}
		}
	}

	/** A job still writing derived data when {@code save} is called (an indexer after a refresh, say). */
	@Test
	void saveWaitsUntilTheBackgroundJobsAreDone() throws Exception {
		f.output(Map.of("A.class", Fixtures.random(1_000, 1)));
		byte[] late = Fixtures.random(5_000, 2);
		IFile lateFile = f.project.getFile("bin/Late.class");
		Job writer = new Job("test: late writer") {
			@Override
			protected IStatus run(IProgressMonitor monitor) {
				try {
					Thread.sleep(700);
					lateFile.create(new ByteArrayInputStream(late), IResource.FORCE, monitor);
					return Status.OK_STATUS;
				} catch (InterruptedException | CoreException e) {
					return Status.error(e.getMessage(), e);
				}
			}
		};
		writer.schedule();
		String repo = f.workTree.toString();

		assertThat(run("save", repo)).as(err).isEqualTo(IApplication.EXIT_OK);
		Matcher waited = Pattern.compile("waited (\\d+) ms for background jobs").matcher(out);
		assertThat(waited.find()).as(out).isTrue();
		assertThat(Long.parseLong(waited.group(1))).isGreaterThanOrEqualTo(600);
		assertThat(writer.getResult()).isNotNull().matches(IStatus::isOK);

		Files.delete(f.workTree.resolve("bin/Late.class"));
		assertThat(run("restore", repo)).as(err).isEqualTo(IApplication.EXIT_OK);
		assertThat(Files.readAllBytes(f.workTree.resolve("bin/Late.class"))).isEqualTo(late);
	}

	/**
	 * The wait for background jobs (save, switch): a job that hands over to another one scheduled with a delay longer
	 * than the quiet period is waited for; a job that runs longer than the time out is named and not waited for.
	 */
	@Test
	void theWaitForBackgroundJobsSeesAJobScheduledWithADelayAndIsBounded() throws Exception {
		AtomicBoolean ran = new AtomicBoolean();
		Job second = Job.create("test: second job", (IProgressMonitor monitor) -> ran.set(true));
		Job first = new Job("test: first job") {
			@Override
			protected IStatus run(IProgressMonitor monitor) {
				try {
					Thread.sleep(200);
				} catch (InterruptedException e) {
					Thread.currentThread().interrupt();
				}
				second.schedule(400);
				return Status.OK_STATUS;
			}
		};
		ByteArrayOutputStream printed = new ByteArrayOutputStream();
		PrintStream stream = new PrintStream(printed, true, StandardCharsets.UTF_8);
		try (BackgroundJobs jobs = BackgroundJobs.watch()) {
			jobs.await(new PrintStream(OutputStream.nullOutputStream())); // what earlier tests left running
			first.schedule();
			long waited = jobs.await(stream);
			assertThat(ran).as("the second job ran before the wait ended").isTrue();
			assertThat(waited).isGreaterThanOrEqualTo(550);
			assertThat(printed.toString(StandardCharsets.UTF_8)).isEqualTo("waited " + waited
					+ " ms for background jobs: " + first.getName() + ", " + second.getName() + System.lineSeparator());
		}

		printed.reset();
		Job endless = new Job("test: endless job") {
			@Override
			protected IStatus run(IProgressMonitor monitor) {
				long end = System.currentTimeMillis() + 20_000;
				while (!monitor.isCanceled() && System.currentTimeMillis() < end) {
					try {
						Thread.sleep(10);
					} catch (InterruptedException e) {
						Thread.currentThread().interrupt();
						break;
					}
				}
				return Status.OK_STATUS;
			}
		};
		endless.schedule();
		try (BackgroundJobs jobs = BackgroundJobs.watch()) {
			long waited = jobs.await(stream, Duration.ofMillis(300));
			assertThat(waited).isBetween(300L, 5_000L);
			assertThat(printed.toString(StandardCharsets.UTF_8)).startsWith("background jobs still busy after ")
					.contains("test: endless job (running)");
		} finally {
			endless.cancel();
			endless.join();
		}
	}

	/**
	 * Branchstate's own pending save is background work too: a save ahead that completes a state saved without a part
	 * its contributor could not give yet (JDT's index at a session's start) is scheduled with a delay and comes back
	 * later while other jobs run. A command that returned before it ran left it writing a new archive behind its back:
	 * the soak's store check (seed 11, step 60, after a save refused by a full disk) found that archive beside the one
	 * the catalog named, over the disk budget.
	 */
	@Test
	void theWaitForBackgroundJobsIncludesAPendingSaveAhead() throws Exception {
		AtomicBoolean ran = new AtomicBoolean();
		// (a state to complete)
		Job completion = jobOf("test: completing a state", ran, SaveAheadJob.FAMILY, SaveAheadJob.COMPLETING);
		try (BackgroundJobs jobs = BackgroundJobs.watch()) {
			jobs.await(new PrintStream(OutputStream.nullOutputStream())); // what earlier tests left running
		}
		completion.schedule(1_500); // longer than a short delay: scheduled before the command's watch began
		try (BackgroundJobs jobs = BackgroundJobs.watch()) {
			ByteArrayOutputStream printed = new ByteArrayOutputStream();
			jobs.await(new PrintStream(printed, true, StandardCharsets.UTF_8));
			assertThat(ran).as("the pending save ahead ran before the wait ended").isTrue();
			assertThat(printed.toString(StandardCharsets.UTF_8)).contains(completion.getName());
		} finally {
			completion.cancel();
			completion.join();
		}
	}

	/**
	 * The workspace's full save that ends {@code build} (as the IDE's exit does) may save the state of HEAD, and a part
	 * left out of it is completed by a save ahead scheduled then: the command waits for that too, so that the store
	 * does not change behind the command's back (the soak's disk budget check met an archive still being written after
	 * a check's {@code build} in the serve command's session: seed 11, step 447). The completion here is scheduled by a
	 * save participant of the test, with a delay longer than a short one.
	 */
	@Test
	void theBuildCommandWaitsForWhatItsWorkspaceSaveScheduled() throws Exception {
		AtomicBoolean ran = new AtomicBoolean();
		AtomicBoolean scheduled = new AtomicBoolean();
		Job completion = jobOf("test: completing a state saved by the full save", ran, SaveAheadJob.FAMILY,
				SaveAheadJob.COMPLETING);
		ISaveParticipant participant = new ISaveParticipant() {
			@Override
			public void saving(ISaveContext context) {
				if (context.getKind() == ISaveContext.FULL_SAVE && scheduled.compareAndSet(false, true)) {
					completion.schedule(2_000);
				}
			}

			@Override
			public void prepareToSave(ISaveContext context) {
				// nothing
			}

			@Override
			public void doneSaving(ISaveContext context) {
				// nothing
			}

			@Override
			public void rollback(ISaveContext context) {
				// nothing
			}
		};
		ResourcesPlugin.getWorkspace().addSaveParticipant("dev.branchstate.core.tests", participant); //$NON-NLS-1$
		try {
			// as the session of the serve command runs it (the application's start waits for background jobs after
			// its one command; a session's commands follow one another)
			ByteArrayOutputStream printed = new ByteArrayOutputStream();
			PrintStream stream = new PrintStream(printed, true, StandardCharsets.UTF_8);
			assertThat(BranchstateApplication.run(List.of("build", f.workTree.toString()), stream, stream))
					.as(printed.toString(StandardCharsets.UTF_8)).isEqualTo(IApplication.EXIT_OK);
			assertThat(scheduled).as("the command saved the workspace in full").isTrue();
			assertThat(ran).as("the completion the full save scheduled ran before the command ended").isTrue();
		} finally {
			ResourcesPlugin.getWorkspace().removeSaveParticipant("dev.branchstate.core.tests"); //$NON-NLS-1$
			completion.cancel();
			completion.join();
		}
	}

	/**
	 * The {@code build} command's wait starts a sleeping auto-build at once once nothing else is busy, instead of
	 * waiting out the delay the platform gives it (up to a second after the previous build: the soak's checks waited
	 * it twice each); the plain wait does not touch it.
	 */
	@Test
	void theBuildCommandsWaitStartsASleepingAutoBuildAtOnce() throws Exception {
		AtomicBoolean ran = new AtomicBoolean();
		Job autoBuild = jobOf("test: auto-build", ran, ResourcesPlugin.FAMILY_AUTO_BUILD);
		try (BackgroundJobs jobs = BackgroundJobs.watch()) {
			jobs.await(new PrintStream(OutputStream.nullOutputStream())); // what earlier tests left running
		}
		autoBuild.schedule(Duration.ofMinutes(30).toMillis());
		try {
			try (BackgroundJobs jobs = BackgroundJobs.watch()) {
				ByteArrayOutputStream printed = new ByteArrayOutputStream();
				jobs.await(new PrintStream(printed, true, StandardCharsets.UTF_8), Duration.ofMillis(300));
				assertThat(ran).as("the plain wait left the auto-build to its delay").isFalse();
				assertThat(printed.toString(StandardCharsets.UTF_8)).startsWith("background jobs still busy after ")
						.contains("test: auto-build (sleeping)");
			}
			try (BackgroundJobs jobs = BackgroundJobs.watch().buildingAtOnce()) {
				ByteArrayOutputStream printed = new ByteArrayOutputStream();
				jobs.await(new PrintStream(printed, true, StandardCharsets.UTF_8), Duration.ofMinutes(5));
				assertThat(ran).as("the build command's wait ran the auto-build").isTrue();
				assertThat(printed.toString(StandardCharsets.UTF_8)).startsWith("waited ")
						.contains("test: auto-build");
			}
		} finally {
			autoBuild.cancel();
			autoBuild.join();
		}
	}

	/** @return a job of the given families that sets {@code ran} when it runs */
	private static Job jobOf(String name, AtomicBoolean ran, Object... families) {
		return new Job(name) {
			@Override
			protected IStatus run(IProgressMonitor monitor) {
				ran.set(true);
				return Status.OK_STATUS;
			}

			@Override
			public boolean belongsTo(Object family) {
				return List.of(families).contains(family);
			}
		};
	}

	@Test
	void switchWithoutBranchstateThenWithItInOneOrSeveralSwitches() throws Exception {
		String repo = f.workTree.toString();
		byte[] mainClass = Fixtures.random(3_000, 3);
		byte[] featureClass = Fixtures.random(4_000, 4);
		f.output(Map.of("A.class", mainClass));
		String main = f.git.getRepository().resolve("HEAD").name();
		f.git.checkout().setCreateBranch(true).setName("feature").call();
		f.write("src/A.java", "class A { int feature; }\n");
		String feature = f.commit("feature").name();
		f.git.checkout().setName("main").call();
		assertThat(run("save", repo)).as(err).isEqualTo(IApplication.EXIT_OK);
		Fixtures.setPreference(BranchstatePreferences.AUTO_SWITCH, "true");

		// without Branchstate: HEAD moves, nothing is saved or restored, the preference is back afterwards
		assertThat(run("switch", repo, "feature", "--without-branchstate")).as(err).isEqualTo(IApplication.EXIT_OK);
		assertThat(f.git.getRepository().getBranch()).isEqualTo("feature");
		assertThat(out).contains("automatic switching off").contains("skipped " + feature.substring(0, 10));
		assertThat(results()).singleElement().satisfies(r -> assertThat(r).contains("branch=feature")
				.contains("restored_files=0 restored_bytes=0").contains("saved_files=0 saved_bytes=0"));
		assertThat(f.events(StateEvent.Kind.SAVED)).hasSize(1); // the save above
		assertThat(f.events(StateEvent.Kind.RESTORED)).isEmpty();
		assertThat(Files.readAllBytes(f.workTree.resolve("bin/A.class"))).isEqualTo(mainClass);
		assertThat(InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE).get(BranchstatePreferences.AUTO_SWITCH,
				null)).isEqualTo("true");

		// feature built and saved; with Branchstate the switch back restores main and saves nothing (stored)
		Files.write(f.workTree.resolve("bin/A.class"), featureClass);
		assertThat(run("save", repo)).as(err).isEqualTo(IApplication.EXIT_OK);
		assertThat(run("switch", repo, "main")).as(err).isEqualTo(IApplication.EXIT_OK);
		assertThat(out).contains("restored " + main.substring(0, 10));
		assertThat(Files.readAllBytes(f.workTree.resolve("bin/A.class"))).isEqualTo(mainClass);
		long[] restored = figures(results().get(0));
		assertThat(restored[0]).as("restored files").isPositive();
		assertThat(restored[1]).as("restored bytes").isGreaterThanOrEqualTo(mainClass.length);
		assertThat(restored[2]).as("saved files").isZero();
		assertThat(run("list", repo)).isEqualTo(IApplication.EXIT_OK);
		assertThat(out).contains("2 state(s)");

		// two switches in one run: one result line each, each restoring the state of its branch
		assertThat(run("switch", repo, "feature", "main")).as(err).isEqualTo(IApplication.EXIT_OK);
		List<String> results = results();
		assertThat(results).hasSize(2);
		assertThat(results.get(0)).contains("branch=feature");
		assertThat(results.get(1)).contains("branch=main");
		assertThat(figures(results.get(0))[0]).isPositive();
		assertThat(figures(results.get(1))[0]).isPositive();
		assertThat(f.git.getRepository().getBranch()).isEqualTo("main");
		assertThat(Files.readAllBytes(f.workTree.resolve("bin/A.class"))).isEqualTo(mainClass);

		// the option before a branch holds for the switches after it: off to feature, on again back to main
		assertThat(run("switch", repo, "--without-branchstate", "feature", "--with-branchstate", "main")).as(err)
				.isEqualTo(IApplication.EXIT_OK);
		results = results();
		assertThat(results).hasSize(2);
		assertThat(figures(results.get(0))).as(out).containsExactly(0, 0, 0);
		assertThat(out.lines().filter(l -> l.contains("automatic switching is off"))).as(out).singleElement()
				.satisfies(l -> assertThat(l).startsWith("skipped " + feature.substring(0, 10)));
		// back on main with Branchstate handling the switch: main's state restored, or found on disk already (what
		// Branchstate takes bin/ for depends on whether a build ran on feature)
		assertThat(out).containsPattern("(restored|skipped) " + main.substring(0, 10) + " main");
		assertThat(Files.readAllBytes(f.workTree.resolve("bin/A.class"))).isEqualTo(mainClass);
		assertThat(InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE).get(BranchstatePreferences.AUTO_SWITCH,
				null)).isEqualTo("true");

		// no state left: the switch saves the state it leaves on the way and restores nothing
		assertThat(run("delete", repo)).as(err).isEqualTo(IApplication.EXIT_OK);
		assertThat(run("switch", repo, "feature")).as(err).isEqualTo(IApplication.EXIT_OK);
		long[] d = figures(results().get(0));
		assertThat(d[0]).as("restored files").isZero();
		assertThat(d[2]).as("saved files").isPositive();
		assertThat(out).contains("saved " + main.substring(0, 10) + " main");
		assertThat(f.service.states(f.gitDir())).anySatisfy(s -> assertThat(s.commitId()).isEqualTo(main));

		// the previous value of the preference is put back, also when there was none
		Fixtures.setPreference(BranchstatePreferences.AUTO_SWITCH, null);
		assertThat(run("switch", repo, "main", "--without-branchstate")).as(err).isEqualTo(IApplication.EXIT_OK);
		assertThat(InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE).get(BranchstatePreferences.AUTO_SWITCH,
				null)).isNull();

		assertThat(run("switch", repo)).isEqualTo(2);
		assertThat(run("switch", repo, "main", "--with-nothing")).isEqualTo(2);
		assertThat(err).contains("unknown option --with-nothing");
		assertThat(run("switch", repo, "--without-branchstate", "main", "feature", "--with-branchstate")).isEqualTo(2);
		assertThat(f.git.getRepository().getBranch()).isEqualTo("main");
	}

	@Test
	void deleteRemovesTheStatesOfTheRepositoryOrTheOneOfACommit() throws Exception {
		String repo = f.workTree.toString();
		f.output(Map.of("A.class", Fixtures.random(2_000, 5)));
		assertThat(run("save", repo)).as(err).isEqualTo(IApplication.EXIT_OK);
		String first = f.git.getRepository().resolve("HEAD").name();
		f.git.checkout().setCreateBranch(true).setName("other").call();
		f.write("src/C.java", "class C {}\n");
		String second = f.commit("other").name();
		assertThat(run("save", repo)).as(err).isEqualTo(IApplication.EXIT_OK);
		assertThat(f.service.states(f.gitDir())).hasSize(2);

		assertThat(run("delete", repo, first)).as(err).isEqualTo(IApplication.EXIT_OK);
		assertThat(out).contains("deleted " + first + " branches=main").contains("1 state(s) deleted");
		assertThat(f.service.states(f.gitDir())).singleElement()
				.satisfies(s -> assertThat(s.commitId()).isEqualTo(second));
		assertThat(run("delete", repo, "main")).isEqualTo(3);
		assertThat(err).contains("no state stored for commit " + first);
		assertThat(run("delete", repo, "no-such-branch")).isEqualTo(3);

		assertThat(run("delete", repo)).as(err).isEqualTo(IApplication.EXIT_OK);
		assertThat(out).contains("deleted " + second + " branches=other").contains("1 state(s) deleted");
		assertThat(f.service.states(f.gitDir())).isEmpty();
		assertThat(f.events(StateEvent.Kind.DELETED)).hasSize(2);
		assertThat(run("delete", repo)).isEqualTo(IApplication.EXIT_OK);
		assertThat(out).contains("0 state(s) deleted");
		assertThat(run("delete")).isEqualTo(2);
	}

	/**
	 * {@code serve}: the command lines of a channel (a file here; a named pipe or standard input for the soak) run one
	 * after the other in this one session, each answered by its output and an end line with its exit code; tabs or
	 * blanks separate the arguments; comments and empty lines are skipped; {@code exit} ends the session.
	 */
	@Test
	void serveRunsEachCommandLineInTheOneSessionAndEndsEachWithItsExitCode() throws Exception {
		f.output(Map.of("A.class", Fixtures.random(2_000, 7)));
		String repo = f.workTree.toString();
		String commit = f.git.getRepository().resolve("HEAD").name();
		Path commands = temp.resolve("commands.txt");
		Files.writeString(commands, String.join("\n", "save\t" + repo, "# a comment", "", "list " + repo,
				"delete " + repo + " no-such-branch", "auto-switch on", "exit", "delete " + repo) + "\n");

		assertThat(run("serve", commands.toString())).as(err).isEqualTo(IApplication.EXIT_OK);

		assertThat(out.lines().findFirst()).contains("serving");
		assertThat(out.lines().filter(l -> l.startsWith("branchstate-serve: end exit=")).toList()).containsExactly(
				"branchstate-serve: end exit=0", "branchstate-serve: end exit=0", "branchstate-serve: end exit=3",
				"branchstate-serve: end exit=0");
		assertThat(out).contains("saved " + commit, "state " + commit + " branches=main", "automatic switching on")
				.contains("branchstate: no commit no-such-branch"); // (a command's errors are lines of its output)
		assertThat(f.service.states(f.gitDir())).hasSize(1); // the line after exit did not run
		assertThat(InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE).get(BranchstatePreferences.AUTO_SWITCH,
				null)).isEqualTo("true");
		assertThat(run("auto-switch", "maybe")).isEqualTo(2);
	}

	/** {@code build} refreshes (a file written behind the IDE's back) and builds; both print the problems sorted. */
	@Test
	void buildRefreshesAndProblemsPrintsTheMarkersSorted() throws Exception {
		String repo = f.workTree.toString();
		Files.writeString(f.workTree.resolve("src/Z.java"), "class Z {}\n");
		IFile z = f.project.getFile("src/Z.java");
		assertThat(z.exists()).isFalse();
		assertThat(run("build", repo, "--problems")).as(err).isEqualTo(IApplication.EXIT_OK);
		assertThat(z.exists()).as("refreshed").isTrue();
		String head = f.git.getRepository().resolve("HEAD").name();
		assertThat(line("built ")).isEqualTo("built " + head + " projects=1");
		// the resources plugin's own problem (no explicit encoding) is on the project: only the files' are ours
		assertThat(out.lines().filter(l -> l.startsWith("problem src/"))).isEmpty();

		var b = f.project.getFile("src/B.java").createMarker(IMarker.PROBLEM);
		b.setAttributes(new String[] { IMarker.SEVERITY, IMarker.LINE_NUMBER, IMarker.MESSAGE, "id" },
				new Object[] { IMarker.SEVERITY_WARNING, 3, "second\nline", 7 });
		var a = f.project.getFile("src/A.java").createMarker(IMarker.PROBLEM);
		a.setAttributes(new String[] { IMarker.SEVERITY, IMarker.MESSAGE }, new Object[] { IMarker.SEVERITY_ERROR, "first" });
		f.project.getFile("src/A.java").createMarker(IMarker.BOOKMARK).setAttribute(IMarker.MESSAGE, "not a problem");
		try {
			assertThat(run("problems", repo)).as(err).isEqualTo(IApplication.EXIT_OK);
			assertThat(out.lines().filter(l -> !l.startsWith(".:"))).containsExactly( //
					"src/A.java:-1 error id=-1 org.eclipse.core.resources.problemmarker first",
					"src/B.java:3 warning id=7 org.eclipse.core.resources.problemmarker second line", //
					(out.lines().count() - 1) + " problem(s)");
			assertThat(run("build", repo, "--problems")).as(err).isEqualTo(IApplication.EXIT_OK);
			assertThat(out.lines().filter(l -> l.startsWith("problem src/"))).containsExactly(
					"problem src/A.java:-1 error id=-1 org.eclipse.core.resources.problemmarker first",
					"problem src/B.java:3 warning id=7 org.eclipse.core.resources.problemmarker second line");
		} finally {
			f.project.deleteMarkers(null, true, IResource.DEPTH_INFINITE);
		}
		assertThat(run("build", repo, "--frobnicate")).isEqualTo(2);
		assertThat(run("problems")).isEqualTo(2);
		assertThat(run("problems", temp.resolve("missing").toString())).isEqualTo(3);
	}

	/** @return the one line of the output of the last command that starts so */
	private String line(String start) {
		List<String> lines = out.lines().filter(l -> l.startsWith(start)).toList();
		assertThat(lines).as(out).hasSize(1);
		return lines.get(0);
	}

	/** @return the result lines of the last switch command */
	private List<String> results() {
		return out.lines().filter(l -> l.startsWith("result ")).toList();
	}

	/** @return restored files, restored bytes, saved files of a result line */
	private static long[] figures(String result) {
		Matcher m = Pattern.compile("restored_files=(\\d+) restored_bytes=(\\d+) rebuilt_files=\\d+ saved_files=(\\d+) saved_bytes=\\d+$")
				.matcher(result);
		assertThat(m.find()).as(result).isTrue();
		assertThat(result).matches("result branch=\\S+ started_ms=\\d+ checkout_ms=\\d+ handled_ms=\\d+ build_ms=\\d+ idle_ms=\\d+ total_ms=\\d+ .*");
		return new long[] { Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)) };
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
