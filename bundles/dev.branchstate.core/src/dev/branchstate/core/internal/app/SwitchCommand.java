package dev.branchstate.core.internal.app;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import org.eclipse.core.resources.IBuildConfiguration;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.IncrementalProjectBuilder;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.core.runtime.preferences.IEclipsePreferences;
import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.jgit.api.CreateBranchCommand.SetupUpstreamMode;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.service.prefs.BackingStoreException;
import org.osgi.util.tracker.ServiceTracker;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.core.IStateListener;
import dev.branchstate.core.IStateService;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.switching.SwitchManager;
import dev.branchstate.core.internal.switching.SwitchProtocol;

/**
 * The headless command {@code switch <repoPath> <branch>... [--without-branchstate]}: checks each branch out in
 * turn with JGit in this process (as an in-IDE checkout would), waits until Branchstate has handled the switch,
 * refreshes and builds the repository's projects, waits until the background jobs are done (an index brought up to
 * date, say: {@link BackgroundJobs}), and prints what happened with timings. Several branches are switches of one
 * IDE session: the JVM is warm for the later ones, and what a switch restored is known to be stored when the next
 * one leaves it, as in a running IDE (a fresh process does not know it and saves the state it leaves again).
 * <p>
 * Before each checkout the projects are refreshed and the background jobs awaited (not timed). The last line of each
 * switch is machine-readable: {@code result branch=.. started_ms=.. checkout_ms=.. handled_ms=.. build_ms=..
 * idle_ms=.. total_ms=.. restored_files=.. restored_bytes=.. rebuilt_files=.. saved_files=.. saved_bytes=..}:
 * {@code started_ms} is the wall clock (epoch milliseconds) at the checkout, {@code total_ms} runs from the checkout
 * until the background jobs were done; the files and bytes are those of the SAVED and RESTORED events of the switch.
 * <p>
 * {@code --without-branchstate} turns automatic switching off (instance scope), {@code --with-branchstate} turns it
 * on: given after the last branch, for every switch of the run; given before a branch, for the switches from there
 * on. The preference is put back to its previous value at the end. {@code --delete-states} between branches deletes
 * the repository's stored states there (the switch after it finds none, as in a new clone); {@code --clean-build}
 * cleans the repository's projects and builds them in full there (Project › Clean…), timed, and prints
 * {@code result clean_build=1 started_ms=.. build_ms=.. total_ms=..}. The workspace is saved at the end, as the IDE
 * does when it exits, with the preference of the last switch still in force: Branchstate's save participant then
 * saves the state of HEAD when a build changed the derived data since the last switch.
 * <p>
 * Exit code 0, 1 when a switch failed or the repository holds no project of the workspace, 2 on a usage error.
 */
public final class SwitchCommand {

	/** The option that turns automatic switching off. */
	public static final String WITHOUT_BRANCHSTATE = "--without-branchstate"; //$NON-NLS-1$
	/** The option that turns automatic switching on. */
	public static final String WITH_BRANCHSTATE = "--with-branchstate"; //$NON-NLS-1$
	/** The step that deletes the repository's stored states before the switches after it. */
	public static final String DELETE_STATES = "--delete-states"; //$NON-NLS-1$
	/** The step that cleans the repository's projects and builds them in full, timed. */
	public static final String CLEAN_BUILD = "--clean-build"; //$NON-NLS-1$
	private static final String USAGE = "branchstate: usage: switch <repoPath> [" + WITHOUT_BRANCHSTATE + "|" //$NON-NLS-1$ //$NON-NLS-2$
			+ WITH_BRANCHSTATE + "] <branch>|" + DELETE_STATES + "|" + CLEAN_BUILD + "... [" + WITHOUT_BRANCHSTATE + "|" //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$ //$NON-NLS-4$
			+ WITH_BRANCHSTATE + "]"; //$NON-NLS-1$
	private static final long SERVICE_TIMEOUT_MS = 30_000;
	private static final long SWITCH_TIMEOUT_MS = 30 * 60_000;

	/**
	 * One switch of a run.
	 *
	 * @param branch     the branch to check out; {@code null} for a step of its own
	 * @param autoSwitch automatic switching for it: {@code null} as configured
	 * @param step       {@value #DELETE_STATES} or {@value #CLEAN_BUILD} when {@code branch} is {@code null}
	 */
	record Step(String branch, Boolean autoSwitch, String step) {
		Step(String branch, Boolean autoSwitch) {
			this(branch, autoSwitch, null);
		}
	}

	private SwitchCommand() {
	}

	public static Integer run(List<String> arguments, PrintStream out, PrintStream err) {
		if (arguments.isEmpty() || arguments.get(0).startsWith("--")) { //$NON-NLS-1$
			err.println(USAGE);
			return Integer.valueOf(2);
		}
		List<Step> steps;
		try {
			steps = steps(arguments.subList(1, arguments.size()));
		} catch (IllegalArgumentException e) {
			err.println(USAGE + " (" + e.getMessage() + ")"); //$NON-NLS-1$ //$NON-NLS-2$
			return Integer.valueOf(2);
		}
		File start = new File(arguments.get(0)).getAbsoluteFile();
		FileRepositoryBuilder builder = new FileRepositoryBuilder().findGitDir(start);
		if (builder.getGitDir() == null) {
			err.println("branchstate: not in a Git repository: " + start); //$NON-NLS-1$
			return Integer.valueOf(1);
		}
		BundleContext context = FrameworkUtil.getBundle(SwitchCommand.class).getBundleContext();
		ServiceTracker<SwitchManager, SwitchManager> managers = new ServiceTracker<>(context, SwitchManager.class, null);
		ServiceTracker<IStateService, IStateService> services = new ServiceTracker<>(context, IStateService.class,
				null);
		managers.open();
		services.open();
		try (BackgroundJobs jobs = BackgroundJobs.watch()) {
			SwitchManager manager = managers.waitForService(SERVICE_TIMEOUT_MS);
			IStateService stateService = services.waitForService(SERVICE_TIMEOUT_MS);
			if (manager == null || stateService == null) {
				err.println("branchstate: the state service is not running"); //$NON-NLS-1$
				return Integer.valueOf(1);
			}
			return new Run(manager, stateService, jobs, builder, out, err).run(steps);
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			err.println("branchstate: interrupted"); //$NON-NLS-1$
			return Integer.valueOf(1);
		} finally {
			managers.close();
			services.close();
		}
	}

	/**
	 * @param arguments the arguments after the repository
	 * @return the switches they ask for, each with its automatic-switching mode
	 * @throws IllegalArgumentException naming what is wrong with them
	 */
	static List<Step> steps(List<String> arguments) {
		List<Step> steps = new ArrayList<>();
		Boolean mode = null;
		Boolean trailing = null;
		boolean before = false;
		for (String argument : arguments) {
			if (DELETE_STATES.equals(argument) || CLEAN_BUILD.equals(argument)) {
				steps.add(new Step(null, mode, argument));
				continue;
			}
			Boolean option = WITHOUT_BRANCHSTATE.equals(argument) ? Boolean.FALSE
					: WITH_BRANCHSTATE.equals(argument) ? Boolean.TRUE : null;
			if (option == null && argument.startsWith("--")) { //$NON-NLS-1$
				throw new IllegalArgumentException("unknown option " + argument); //$NON-NLS-1$
			}
			if (option != null && steps.isEmpty()) {
				mode = option;
				before = true;
			} else if (option != null) {
				trailing = option;
			} else {
				if (trailing != null) {
					before = true;
					mode = trailing;
					trailing = null;
				}
				steps.add(new Step(argument, mode));
			}
		}
		if (steps.isEmpty()) {
			throw new IllegalArgumentException("no branch or step given"); //$NON-NLS-1$
		}
		if (trailing != null) {
			if (before) {
				throw new IllegalArgumentException(
						"an option after the last branch is for every switch: give no other before it"); //$NON-NLS-1$
			}
			Boolean all = trailing;
			return steps.stream().map(s -> new Step(s.branch(), all, s.step())).toList();
		}
		return steps;
	}

	/** One run of the command on one repository. */
	private static final class Run {
		private final SwitchManager manager;
		private final IStateService stateService;
		private final BackgroundJobs jobs;
		private final FileRepositoryBuilder builder;
		private final PrintStream out;
		private final PrintStream err;
		private final List<StateEvent> events = new CopyOnWriteArrayList<>();
		private File gitDir;
		private String key;
		/** When the current switch began: the events tell their time from it. */
		private volatile long t0 = System.nanoTime();

		Run(SwitchManager manager, IStateService stateService, BackgroundJobs jobs, FileRepositoryBuilder builder,
				PrintStream out, PrintStream err) {
			this.manager = manager;
			this.stateService = stateService;
			this.jobs = jobs;
			this.builder = builder;
			this.out = out;
			this.err = err;
		}

		Integer run(List<Step> steps) throws InterruptedException {
			manager.track();
			Optional<File> followed = manager.repository(builder.getGitDir());
			if (followed.isEmpty()) {
				err.println("branchstate: no open project of the workspace is in " + builder.getGitDir()); //$NON-NLS-1$
				return Integer.valueOf(1);
			}
			gitDir = followed.get();
			key = SwitchManager.key(gitDir);
			IStateListener listener = event -> {
				if (event.gitDir() != null && SwitchManager.key(event.gitDir()).equals(key)) {
					events.add(event);
					out.println(format(event, t0));
				}
			};
			IEclipsePreferences node = InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE);
			String previous = node.get(BranchstatePreferences.AUTO_SWITCH, null);
			Boolean current = null;
			Integer exit = Integer.valueOf(0);
			stateService.addStateListener(listener);
			try {
				awaitSwitches(); // a switch still pending from before, e.g. HEAD moved while Eclipse was closed
				for (Step step : steps) {
					if (!Objects.equals(step.autoSwitch(), current)) {
						current = step.autoSwitch();
						put(node, current == null ? previous : current.toString());
						if (current != null && SwitchProtocol.autoSwitch(projects()) != current.booleanValue()) {
							err.println("branchstate: a project of " + gitDir //$NON-NLS-1$
									+ " sets automatic switching in its own preferences: the option cannot change it"); //$NON-NLS-1$
							return Integer.valueOf(1);
						}
						out.println("automatic switching " + (current == null ? "as configured" //$NON-NLS-1$ //$NON-NLS-2$
								: current.booleanValue() ? "on" : "off")); //$NON-NLS-1$ //$NON-NLS-2$
					}
					if (DELETE_STATES.equals(step.step())) {
						deleteStates();
						continue;
					}
					if (CLEAN_BUILD.equals(step.step())) {
						cleanBuild();
						continue;
					}
					exit = switchTo(step.branch());
					if (exit.intValue() != 0) {
						break;
					}
				}
				// as the IDE does when it exits, after a switch that failed too (else the next session starts as after
				// a crash, without the builders' states of this one); the save participant sees the preference of the
				// last switch
				ResourcesPlugin.getWorkspace().save(true, null);
				return exit;
			} catch (CoreException e) {
				err.println("branchstate: " + e.getStatus().getMessage()); //$NON-NLS-1$
				return Integer.valueOf(1);
			} finally {
				stateService.removeStateListener(listener);
				if (current != null) {
					put(node, previous);
				}
			}
		}

		/** The {@value #DELETE_STATES} step: the next switch finds no stored state, as in a new clone. */
		private void deleteStates() throws CoreException {
			List<StateInfo> stored = stateService.states(gitDir);
			for (StateInfo state : stored) {
				stateService.delete(state);
			}
			out.println("deleted " + stored.size() + " state(s)"); //$NON-NLS-1$ //$NON-NLS-2$
		}

		/** The {@value #CLEAN_BUILD} step: the reference a switch is compared with, Project › Clean… and a full build. */
		private void cleanBuild() throws InterruptedException, CoreException {
			refresh();
			jobs.await(out);
			long start = System.nanoTime();
			long startedMs = System.currentTimeMillis();
			IWorkspace workspace = ResourcesPlugin.getWorkspace();
			IBuildConfiguration[] configs = projects().stream().map(project -> {
				try {
					return project.getActiveBuildConfig();
				} catch (CoreException e) {
					throw new IllegalStateException(e.getMessage(), e);
				}
			}).toArray(IBuildConfiguration[]::new);
			workspace.build(configs, IncrementalProjectBuilder.CLEAN_BUILD, false, null);
			workspace.build(configs, IncrementalProjectBuilder.FULL_BUILD, false, null);
			awaitAutoBuild();
			long buildMs = millis(start);
			out.println("clean build " + buildMs + " ms"); //$NON-NLS-1$ //$NON-NLS-2$
			long totalMs = buildMs + jobs.await(out);
			out.println("result clean_build=1 started_ms=" + startedMs + " build_ms=" + buildMs + " total_ms=" //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
					+ totalMs);
		}

		private Integer switchTo(String branch) throws InterruptedException, CoreException {
			// the IDE before the checkout: in sync with the disk, nothing left to do. The platform schedules an
			// auto-build after every operation, the refresh's too, which sleeps up to a second and then finds nothing
			// to build: it is run now, not waited for as background work.
			refresh();
			awaitAutoBuild();
			jobs.await(out);
			events.clear();
			long start = System.nanoTime();
			t0 = start;
			long startedMs = System.currentTimeMillis();
			try (Repository repository = builder.setMustExist(true).build(); Git git = Git.wrap(repository)) {
				boolean local = repository.exactRef(Constants.R_HEADS + branch) != null;
				boolean remote = repository.exactRef(Constants.R_REMOTES + "origin/" + branch) != null; //$NON-NLS-1$
				var checkout = git.checkout().setName(branch);
				if (!local && remote) {
					checkout.setCreateBranch(true).setStartPoint("origin/" + branch) //$NON-NLS-1$
							.setUpstreamMode(SetupUpstreamMode.TRACK);
				}
				checkout.call();
			} catch (IOException | GitAPIException e) {
				err.println("branchstate: checkout of " + branch + " failed: " + e.getMessage()); //$NON-NLS-1$ //$NON-NLS-2$
				return Integer.valueOf(1);
			}
			long checkoutMs = millis(start);
			out.println("checkout " + branch + " " + checkoutMs + " ms"); //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
			long switchStart = System.nanoTime();
			manager.requestCheck(gitDir);
			awaitSwitches();
			long handledMs = millis(switchStart);
			out.println("switch handled " + handledMs + " ms"); //$NON-NLS-1$ //$NON-NLS-2$
			long buildStart = System.nanoTime();
			IWorkspace workspace = ResourcesPlugin.getWorkspace();
			try {
				refresh();
				if (!workspace.isAutoBuilding()) {
					workspace.build(IncrementalProjectBuilder.INCREMENTAL_BUILD, null);
				}
				awaitAutoBuild();
			} catch (CoreException e) {
				err.println("branchstate: build failed: " + e.getStatus().getMessage()); //$NON-NLS-1$
				return Integer.valueOf(1);
			}
			long buildMs = millis(buildStart);
			out.println("refresh and build " + buildMs + " ms"); //$NON-NLS-1$ //$NON-NLS-2$
			long beforeIdle = millis(start);
			long idleMs = jobs.await(out);
			long totalMs = beforeIdle + idleMs;
			out.println("total " + totalMs + " ms"); //$NON-NLS-1$ //$NON-NLS-2$
			long restoredFiles = 0;
			long restoredBytes = 0;
			long rebuilt = 0;
			long savedFiles = 0;
			long savedBytes = 0;
			boolean failed = false;
			for (StateEvent event : events) {
				switch (event.kind()) {
				case RESTORED -> {
					restoredFiles += event.files();
					restoredBytes += event.bytes();
					rebuilt += event.rebuilt();
				}
				case SAVED -> {
					savedFiles += event.files();
					savedBytes += event.bytes();
				}
				case FAILED -> failed = true;
				default -> {
					// skipped and deleted: told above
				}
				}
			}
			out.println("result branch=" + branch + " started_ms=" + startedMs + " checkout_ms=" + checkoutMs //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
					+ " handled_ms=" + handledMs + " build_ms=" + buildMs + " idle_ms=" + idleMs + " total_ms=" //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$ //$NON-NLS-4$
					+ totalMs + " restored_files=" + restoredFiles + " restored_bytes=" + restoredBytes //$NON-NLS-1$ //$NON-NLS-2$
					+ " rebuilt_files=" + rebuilt + " saved_files=" + savedFiles + " saved_bytes=" + savedBytes); //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
			return Integer.valueOf(failed ? 1 : 0);
		}

		/** @return the open projects of the workspace in the repository */
		private List<IProject> projects() {
			List<IProject> projects = new ArrayList<>();
			for (IProject project : ResourcesPlugin.getWorkspace().getRoot().getProjects()) {
				if (project.isOpen() && stateService.repositoryOf(project).map(SwitchManager::key)
						.filter(key::equals).isPresent()) {
					projects.add(project);
				}
			}
			return projects;
		}

		private void refresh() throws CoreException {
			for (IProject project : projects()) {
				project.refreshLocal(IResource.DEPTH_INFINITE, null);
			}
		}
	}

	/** Sets the automatic-switching preference of the instance scope; {@code null} removes it. */
	private static void put(IEclipsePreferences node, String value) {
		if (value == null) {
			node.remove(BranchstatePreferences.AUTO_SWITCH);
		} else {
			node.put(BranchstatePreferences.AUTO_SWITCH, value);
		}
		try {
			node.flush();
		} catch (BackingStoreException e) {
			throw new IllegalStateException(e.getMessage(), e);
		}
	}

	/**
	 * Runs the auto-build now rather than after its delay (up to a second after the last build), and waits for it:
	 * the build the IDE runs after the switch, without the delay's noise in the times.
	 */
	private static void awaitAutoBuild() throws InterruptedException {
		for (int round = 0; round < 10; round++) {
			Job[] builds = Job.getJobManager().find(ResourcesPlugin.FAMILY_AUTO_BUILD);
			if (builds.length == 0) {
				return;
			}
			for (Job build : builds) {
				build.wakeUp();
			}
			Job.getJobManager().join(ResourcesPlugin.FAMILY_AUTO_BUILD, null);
		}
	}

	/**
	 * Waits until no switch job is left: running, waiting, or sleeping until the jobs it waits for are done (a join
	 * can return while a job sleeps between its runs).
	 */
	private static void awaitSwitches() throws InterruptedException {
		long deadline = System.currentTimeMillis() + SWITCH_TIMEOUT_MS;
		Job[] jobs;
		while ((jobs = Job.getJobManager().find(SwitchManager.FAMILY)).length > 0
				&& System.currentTimeMillis() < deadline) {
			for (Job job : jobs) {
				job.join(Math.max(1, deadline - System.currentTimeMillis()), null);
				if (job.getState() == Job.SLEEPING) {
					Thread.sleep(10);
				}
			}
		}
	}

	private static String format(StateEvent event, long t0) {
		StringBuilder line = new StringBuilder();
		line.append(event.kind().name().toLowerCase());
		if (event.commitId() != null) {
			line.append(' ').append(event.commitId(), 0, Math.min(10, event.commitId().length()));
		}
		if (event.branch() != null) {
			line.append(' ').append(event.branch());
		}
		if (event.kind() == StateEvent.Kind.SAVED || event.kind() == StateEvent.Kind.RESTORED) {
			line.append(" files=").append(event.files()).append(" bytes=").append(event.bytes()); //$NON-NLS-1$ //$NON-NLS-2$
		}
		if (event.kind() == StateEvent.Kind.RESTORED) {
			line.append(" rebuilt=").append(event.rebuilt()); //$NON-NLS-1$
		}
		if (event.duration() != null) {
			line.append(' ').append(event.duration().toMillis()).append(" ms"); //$NON-NLS-1$
		}
		line.append(" at +").append(millis(t0)).append(" ms"); //$NON-NLS-1$ //$NON-NLS-2$
		if (event.message() != null) {
			line.append(": ").append(event.message()); //$NON-NLS-1$
		}
		return line.toString();
	}

	private static long millis(long since) {
		return (System.nanoTime() - since) / 1_000_000;
	}
}
