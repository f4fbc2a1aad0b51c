package dev.branchstate.core.internal.app;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.core.runtime.preferences.IEclipsePreferences;
import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.equinox.app.IApplication;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.service.prefs.BackingStoreException;
import org.osgi.util.tracker.ServiceTracker;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.core.IStateService;
import dev.branchstate.core.RestoreResult;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.service.ProjectPaths;
import dev.branchstate.core.internal.service.RemovedProjects;
import dev.branchstate.core.internal.service.StateService;
import dev.branchstate.core.internal.service.StorePreferences;
import dev.branchstate.core.internal.switching.SaveAheadJob;
import dev.branchstate.core.internal.store.StateStore;
import dev.branchstate.core.internal.switching.SwitchManager;

/** The commands of the headless application other than {@code status}. */
final class Commands {

	private final PrintStream out;
	private final PrintStream err;

	Commands(PrintStream out, PrintStream err) {
		this.out = out;
		this.err = err;
	}

	Object run(List<String> arguments) {
		String command = arguments.get(0);
		List<String> args = arguments.subList(1, arguments.size());
		try {
			return switch (command) {
			case "import" -> importProjects(args); //$NON-NLS-1$
			case "list" -> list(optional(args)); //$NON-NLS-1$
			case "save" -> save(one(args)); //$NON-NLS-1$
			case "restore" -> restore(args); //$NON-NLS-1$
			case "delete" -> delete(args); //$NON-NLS-1$
			case "verify" -> verify(optional(args)); //$NON-NLS-1$
			case "prune" -> prune(optional(args)); //$NON-NLS-1$
			case "build" -> build(args); //$NON-NLS-1$
			case "problems" -> problems(one(args)); //$NON-NLS-1$
			case "publish", "fetch", "published", "remote-keys" -> new RemoteCommands(out).run(command, args); //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$ //$NON-NLS-4$
			default -> BranchstateApplication.usage("unknown command '" + command + "'"); //$NON-NLS-1$ //$NON-NLS-2$
			};
		} catch (UsageException e) {
			return BranchstateApplication.usage(e.getMessage());
		} catch (NotFoundException e) {
			return fail(e.getMessage(), BranchstateApplication.EXIT_NOT_FOUND);
		} catch (CoreException e) {
			return fail(oneLine(e.getStatus()), BranchstateApplication.EXIT_PROBLEM);
		} catch (IOException | RuntimeException e) {
			return fail(e.getClass().getSimpleName() + ": " + e.getMessage(), BranchstateApplication.EXIT_PROBLEM); //$NON-NLS-1$
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			return fail("interrupted", BranchstateApplication.EXIT_PROBLEM); //$NON-NLS-1$
		}
	}

	private Object fail(String message, Integer code) {
		err.println("branchstate: " + message.replace('\n', ' ')); //$NON-NLS-1$
		return code;
	}

	private static String oneLine(IStatus status) {
		StringBuilder b = new StringBuilder(status.getMessage());
		IStatus s = status;
		while (s.isMultiStatus() && s.getChildren().length > 0) {
			s = s.getChildren()[0];
			b.append(": ").append(s.getMessage()); //$NON-NLS-1$
		}
		return b.toString();
	}

	private static String one(List<String> args) throws UsageException {
		if (args.size() != 1) {
			throw new UsageException("expected one repository path"); //$NON-NLS-1$
		}
		return args.get(0);
	}

	private static Optional<String> optional(List<String> args) throws UsageException {
		if (args.size() > 1) {
			throw new UsageException("expected at most one repository path"); //$NON-NLS-1$
		}
		return args.stream().findFirst();
	}

	// ------------------------------------------------------------------------------------------------ import

	private static final String DERIVED_OPTION = "--derived="; //$NON-NLS-1$

	private Object importProjects(List<String> args)
			throws CoreException, IOException, NotFoundException, UsageException {
		String derived = null;
		List<String> paths = new ArrayList<>();
		for (String a : args) {
			if (a.startsWith(DERIVED_OPTION)) {
				derived = a.substring(DERIVED_OPTION.length());
			} else {
				paths.add(a);
			}
		}
		File gitDir = gitDir(one(paths));
		if (derived != null) {
			// workspace-wide (instance scope), so that nothing is written into the repository
			IEclipsePreferences node = InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE);
			node.put(BranchstatePreferences.DERIVED_FOLDERS, derived);
			try {
				node.flush();
			} catch (BackingStoreException e) {
				throw new IOException(e.getMessage(), e);
			}
			out.println("derived folders " + derived); //$NON-NLS-1$
		}
		Path workTree;
		try (Repository repository = new FileRepositoryBuilder().setGitDir(gitDir).setMustExist(true).build()) {
			workTree = repository.getWorkTree().toPath().toRealPath();
		}
		IWorkspace workspace = ResourcesPlugin.getWorkspace();
		List<Path> found = new ArrayList<>();
		Files.walkFileTree(workTree, new SimpleFileVisitor<>() {
			@Override
			public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
				if (dir.getFileName() != null && ".git".equals(dir.getFileName().toString())) { //$NON-NLS-1$
					return FileVisitResult.SKIP_SUBTREE;
				}
				if (Files.isRegularFile(dir.resolve(IProjectDescription.DESCRIPTION_FILE_NAME))) {
					found.add(dir);
					return FileVisitResult.SKIP_SUBTREE;
				}
				return FileVisitResult.CONTINUE;
			}
		});
		NullProgressMonitor monitor = new NullProgressMonitor();
		List<IProjectDescription> descriptions = new ArrayList<>();
		List<Path> locations = new ArrayList<>();
		if (found.isEmpty()) {
			IProjectDescription description = workspace.newProjectDescription(workTree.getFileName().toString());
			description.setLocation(IPath.fromFile(workTree.toFile()));
			descriptions.add(description);
			locations.add(workTree);
		}
		for (Path dir : found) {
			IProjectDescription description = workspace
					.loadProjectDescription(IPath.fromFile(dir.resolve(IProjectDescription.DESCRIPTION_FILE_NAME).toFile()));
			IPath defaultLocation = workspace.getRoot().getLocation().append(description.getName());
			description.setLocation(defaultLocation.toFile().toPath().toAbsolutePath().equals(dir) ? null
					: IPath.fromFile(dir.toFile()));
			descriptions.add(description);
			locations.add(dir);
		}
		// the work tree's projects that core.resources closed at start-up because their description was missing (a
		// checkout while the IDE was closed, which the headless application does not handle as a switch) leave the
		// workspace; an open one is left to the switch (a description Git tracked) or to Eclipse, which writes it again
		Map<IProject, IPath> gone = new LinkedHashMap<>();
		RemovedProjects.in(workTree).stream().filter(p -> !p.isOpen()).forEach(p -> gone.put(p, p.getLocation()));
		// and a closed project without a description, wherever it is, that has the name of a project found here: what
		// an IDE killed between a project's removal and core.resources' next snapshot starts with (RemovedProjects
		// .removeFromWorkspace), closed at its default location without a metadata area; opening it fails ("Could not
		// write metadata"), and it blocks the import of the project of that name. Nothing of it is on disk
		List<String> names = descriptions.stream().map(IProjectDescription::getName).toList();
		for (IProject p : workspace.getRoot().getProjects()) {
			if (!p.isOpen() && names.contains(p.getName()) && !ProjectPaths.descriptionOnDisk(p)) {
				gone.putIfAbsent(p, p.getLocation());
			}
		}
		for (IProject project : RemovedProjects.removeFromWorkspace(List.copyOf(gone.keySet()), monitor)) {
			out.println("removed " + project.getName() + " " + gone.get(project)); //$NON-NLS-1$ //$NON-NLS-2$
		}
		// all of them in one workspace operation, as the Existing Projects import wizard does: builders and JDT see
		// one change with every project, so no classpath is checked while a project it reads is still missing
		int[] imported = { 0 };
		int[] opened = { 0 };
		workspace.run(m -> {
			SubMonitor sub = SubMonitor.convert(m, descriptions.size() * 2);
			for (IProjectDescription description : descriptions) {
				IProject project = workspace.getRoot().getProject(description.getName());
				if (!project.exists()) {
					project.create(description, sub.split(1));
					imported[0]++;
				}
			}
			for (IProjectDescription description : descriptions) {
				IProject project = workspace.getRoot().getProject(description.getName());
				if (!project.isOpen()) {
					project.open(sub.split(1));
					opened[0]++;
				}
			}
		}, workspace.getRoot(), IWorkspace.AVOID_UPDATE, monitor);
		for (int i = 0; i < descriptions.size(); i++) {
			out.println("project " + descriptions.get(i).getName() + " " + locations.get(i)); //$NON-NLS-1$ //$NON-NLS-2$
		}
		if (opened[0] > 0 || !gone.isEmpty()) { // (a save of the workspace as it was changes nothing)
			workspace.save(true, monitor);
		}
		out.println("imported " + imported[0] + " project(s), opened " + opened[0]); //$NON-NLS-1$ //$NON-NLS-2$
		return IApplication.EXIT_OK;
	}

	// ----------------------------------------------------------------------------------------- list / save

	private Object list(Optional<String> repoPath) throws NotFoundException, IOException, CoreException {
		StateService service = service();
		List<StateInfo> states = repoPath.isPresent() ? service.states(gitDir(repoPath.get())) : service.allStates();
		for (StateInfo s : states) {
			out.println("state " + s.commitId() + " branches=" + String.join(",", s.branches()) //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
					+ " size=" + s.size() + " data=" + s.uncompressedSize() + " created=" + s.created() //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
					+ " lastUsed=" + s.lastUsed() + " repo=" + s.gitDir()); //$NON-NLS-1$ //$NON-NLS-2$
		}
		out.println(states.size() + " state(s) in " + service.store().directory()); //$NON-NLS-1$
		return IApplication.EXIT_OK;
	}

	/**
	 * Refreshes the repository's projects, waits until the background jobs are done (an index brought up to date
	 * after the refresh would otherwise be saved half-done) and the build is up to date, then saves the state of HEAD,
	 * and waits until it is complete (a contributor's part left out while the IDE was busy is added when it is idle).
	 */
	private Object save(String repoPath) throws CoreException, NotFoundException, IOException, InterruptedException {
		try (BackgroundJobs jobs = BackgroundJobs.watch()) {
			StateService service = service();
			File gitDir = gitDir(repoPath);
			refresh(service, gitDir);
			jobs.await(out);
			service.awaitBuild(gitDir, new NullProgressMonitor());
			jobs.await(out); // what the build handed to indexers
			long start = System.nanoTime();
			StateInfo saved = service.save(gitDir, new NullProgressMonitor());
			long ms = (System.nanoTime() - start) / 1_000_000;
			// a part a contributor could not give yet (JDT's indexer still at work in its own thread) is added once
			// the IDE is idle, as in the IDE; the state printed is the one stored then
			Job.getJobManager().join(SaveAheadJob.FAMILY, null);
			StateInfo state = service.states(gitDir).stream().filter(s -> s.commitId().equals(saved.commitId()))
					.findFirst().orElse(saved);
			// as the IDE does when it exits: the builders' last built states (and JDT's) are kept for the next session
			saveWorkspace(jobs);
			out.println("saved " + state.commitId() + " branches=" + String.join(",", state.branches()) + " size=" //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$ //$NON-NLS-4$
					+ state.size() + " data=" + state.uncompressedSize() + " archive=" + state.archive() + " ms=" + ms); //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
			return IApplication.EXIT_OK;
		}
	}

	/**
	 * Restores the state of each commit named (default HEAD) in turn: after a refresh and the background jobs (nothing
	 * may be updating the data being restored), and waits for them again after each restore (what it handed to
	 * contributors is then done). A second restore in the one session is a restore in an IDE that has already run one
	 * (its code loaded and compiled), as in a long IDE session.
	 */
	private Object restore(List<String> args)
			throws CoreException, NotFoundException, IOException, UsageException, InterruptedException {
		if (args.isEmpty()) {
			throw new UsageException("expected a repository path and optionally commits"); //$NON-NLS-1$
		}
		try (BackgroundJobs jobs = BackgroundJobs.watch()) {
			StateService service = service();
			File gitDir = gitDir(args.get(0));
			List<String> commits = new ArrayList<>();
			for (String revision : args.size() > 1 ? args.subList(1, args.size()) : List.of(Constants.HEAD)) {
				String commit = commit(gitDir, revision);
				if (service.states(gitDir).stream().noneMatch(s -> s.commitId().equals(commit))) {
					throw new NotFoundException("no state stored for commit " + commit + " of " + gitDir); //$NON-NLS-1$ //$NON-NLS-2$
				}
				commits.add(commit);
			}
			refresh(service, gitDir);
			for (String commit : commits) {
				jobs.await(out);
				RestoreResult result = service.restore(gitDir, commit, new NullProgressMonitor());
				jobs.await(out);
				saveWorkspace(jobs);
				out.println("restored " + commit + " files=" + result.filesRestored() + " written=" //$NON-NLS-1$ //$NON-NLS-2$
						+ result.filesWritten() + " deleted=" + result.filesDeleted() + " rebuild=" //$NON-NLS-1$ //$NON-NLS-2$
						+ result.changedSources() + " ms=" + result.duration().toMillis()); //$NON-NLS-1$
			}
			return IApplication.EXIT_OK;
		}
	}

	/** @return the full id of the commit a revision (commit id, branch, HEAD) names in the repository */
	static String commit(File gitDir, String revision) throws IOException, NotFoundException {
		try (Repository repository = new FileRepositoryBuilder().setGitDir(gitDir).setMustExist(true).build()) {
			ObjectId id = repository.resolve(revision);
			if (id == null) {
				throw new NotFoundException("no commit " + revision + " in " + gitDir); //$NON-NLS-1$ //$NON-NLS-2$
			}
			return id.name();
		}
	}

	/**
	 * Deletes the stored states of the repository: all of them, or the one of a commit (a revision Git resolves, or
	 * the start of the commit id of a state whose commit is gone).
	 */
	private Object delete(List<String> args) throws CoreException, NotFoundException, IOException, UsageException {
		if (args.isEmpty() || args.size() > 2) {
			throw new UsageException("expected a repository path and optionally a commit"); //$NON-NLS-1$
		}
		StateService service = service();
		File gitDir = gitDir(args.get(0));
		List<StateInfo> states = service.states(gitDir);
		if (args.size() == 2) {
			String revision = args.get(1);
			String commit;
			try {
				commit = commit(gitDir, revision);
			} catch (NotFoundException e) {
				if (!revision.matches("[0-9a-fA-F]{4,40}")) { //$NON-NLS-1$
					throw e;
				}
				commit = revision.toLowerCase(java.util.Locale.ROOT);
			}
			String prefix = commit;
			states = states.stream().filter(s -> s.commitId().startsWith(prefix)).toList();
			if (states.isEmpty()) {
				throw new NotFoundException("no state stored for commit " + commit + " of " + gitDir); //$NON-NLS-1$ //$NON-NLS-2$
			}
		}
		for (StateInfo s : states) {
			service.delete(s);
			out.println("deleted " + s.commitId() + " branches=" + String.join(",", s.branches()) + " archive=" //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$ //$NON-NLS-4$
					+ s.archive());
		}
		out.println(states.size() + " state(s) deleted"); //$NON-NLS-1$
		return IApplication.EXIT_OK;
	}

	private static void refresh(StateService service, File gitDir) throws CoreException, NotFoundException {
		List<IProject> projects = service.projectsOf(gitDir);
		if (projects.isEmpty()) {
			throw new NotFoundException("no workspace project belongs to " + gitDir + " (run import first)"); //$NON-NLS-1$ //$NON-NLS-2$
		}
		for (IProject p : projects) {
			p.refreshLocal(IResource.DEPTH_INFINITE, new NullProgressMonitor());
		}
	}

	// ------------------------------------------------------------------------------------- build / problems

	private static final String PROBLEMS_OPTION = "--problems"; //$NON-NLS-1$

	/**
	 * {@code build <repoPath> [--problems]}: what the IDE does when it starts and is left alone: a switch still
	 * pending (HEAD moved by a terminal checkout, say) is handled, the repository's projects are refreshed and built
	 * (as the auto-build would, or an incremental build when it is off), the background jobs awaited, the workspace
	 * saved. With {@code --problems} it then prints the problem markers as {@code problems} does, each line prefixed
	 * with {@code problem }.
	 */
	private Object build(List<String> args)
			throws CoreException, NotFoundException, IOException, UsageException, InterruptedException {
		boolean problems = args.contains(PROBLEMS_OPTION);
		List<String> paths = args.stream().filter(a -> !PROBLEMS_OPTION.equals(a)).toList();
		if (paths.size() != args.size() - (problems ? 1 : 0) || paths.stream().anyMatch(a -> a.startsWith("--"))) { //$NON-NLS-1$
			throw new UsageException("build takes a repository path and optionally " + PROBLEMS_OPTION); //$NON-NLS-1$
		}
		String repoPath = one(paths);
		try (BackgroundJobs jobs = BackgroundJobs.watch().buildingAtOnce()) {
			StateService service = service();
			File gitDir = gitDir(repoPath);
			if (service.projectsOf(gitDir).isEmpty()) {
				throw new NotFoundException("no workspace project belongs to " + gitDir + " (run import first)"); //$NON-NLS-1$ //$NON-NLS-2$
			}
			// the IDE's start-up jobs first, as for a user who waits for the IDE to settle: JDT's compiler can fail in
			// a build that runs while JDT re-initializes its classpaths at start-up (a NullPointerException in
			// LookupEnvironment.getModule, "Bug 529367", seen in the soak with no Branchstate work in the session)
			jobs.await(out);
			awaitPendingSwitch(gitDir);
			refresh(service, gitDir);
			jobs.await(out);
			awaitSwitches(); // a refresh that found a moved HEAD
			service.awaitBuild(gitDir, new NullProgressMonitor());
			jobs.await(out);
			saveWorkspace(jobs);
			out.println("built " + commit(gitDir, Constants.HEAD) + " projects=" + service.projectsOf(gitDir).size()); //$NON-NLS-1$ //$NON-NLS-2$
			if (problems) {
				for (String line : problemLines(service, gitDir)) {
					out.println("problem " + line); //$NON-NLS-1$
				}
			}
			return IApplication.EXIT_OK;
		}
	}

	/**
	 * {@code problems <repoPath>}: one line per problem marker (subtypes included: Java problems, build path
	 * problems...) of the repository's projects, sorted: {@code <path in the work tree>:<line> <severity> id=<id>
	 * <type> <message>}, then the count. Reads only: it neither refreshes nor builds.
	 */
	private Object problems(String repoPath) throws CoreException, NotFoundException {
		StateService service = service();
		File gitDir = gitDir(repoPath);
		if (service.projectsOf(gitDir).isEmpty()) {
			throw new NotFoundException("no workspace project belongs to " + gitDir + " (run import first)"); //$NON-NLS-1$ //$NON-NLS-2$
		}
		List<String> lines = problemLines(service, gitDir);
		lines.forEach(out::println);
		out.println(lines.size() + " problem(s)"); //$NON-NLS-1$
		return IApplication.EXIT_OK;
	}

	/** @return the problem markers of the repository's projects, one line each, sorted */
	static List<String> problemLines(StateService service, File gitDir) throws CoreException {
		List<String> lines = new ArrayList<>();
		List<IProject> projects = service.projectsOf(gitDir);
		Map<IProject, String> folders;
		try (Repository repository = new FileRepositoryBuilder().setGitDir(gitDir).setMustExist(true).build()) {
			folders = ProjectPaths.prefixes(repository, projects);
		} catch (IOException e) {
			folders = Map.of();
		}
		for (IProject project : projects) {
			if (!project.isOpen()) {
				continue;
			}
			// the path in the work tree: the same in every workspace the repository is imported into (a project
			// outside it: named as the workspace names it)
			String folder = folders.getOrDefault(project, project.getName());
			for (IMarker marker : project.findMarkers(IMarker.PROBLEM, true, IResource.DEPTH_INFINITE)) {
				String inProject = marker.getResource().getType() == IResource.PROJECT ? "" //$NON-NLS-1$
						: marker.getResource().getProjectRelativePath().toString();
				String path = folder.isEmpty() ? (inProject.isEmpty() ? "." : inProject) //$NON-NLS-1$
						: inProject.isEmpty() ? folder : folder + '/' + inProject;
				lines.add(path + ":" + marker.getAttribute(IMarker.LINE_NUMBER, -1) + " " //$NON-NLS-1$ //$NON-NLS-2$
						+ severity(marker.getAttribute(IMarker.SEVERITY, -1)) + " id=" + marker.getAttribute("id", -1) //$NON-NLS-1$ //$NON-NLS-2$
						+ " " + marker.getType() + " " + marker.getAttribute(IMarker.MESSAGE, "").replace('\n', ' ')); //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
			}
		}
		lines.sort(null);
		return lines;
	}

	private static String severity(int severity) {
		return switch (severity) {
		case IMarker.SEVERITY_ERROR -> "error"; //$NON-NLS-1$
		case IMarker.SEVERITY_WARNING -> "warning"; //$NON-NLS-1$
		case IMarker.SEVERITY_INFO -> "info"; //$NON-NLS-1$
		default -> "severity" + severity; //$NON-NLS-1$
		};
	}

	/**
	 * Saves the workspace in full, as the IDE does when it exits, and waits for what that save scheduled: Branchstate's
	 * save participant saves the state of HEAD when none is stored, and a part it had to leave out (JDT's indexer still
	 * at work) is added by a save ahead once the IDE is idle. The command's caller must find the store as it stays.
	 */
	private void saveWorkspace(BackgroundJobs jobs) throws CoreException, InterruptedException {
		ResourcesPlugin.getWorkspace().save(true, new NullProgressMonitor());
		jobs.await(out);
	}

	/** Lets the switch manager find the repositories and handle a switch that happened while no IDE ran. */
	private static void awaitPendingSwitch(File gitDir) throws InterruptedException {
		BundleContext context = FrameworkUtil.getBundle(Commands.class).getBundleContext();
		ServiceTracker<SwitchManager, SwitchManager> tracker = new ServiceTracker<>(context, SwitchManager.class, null);
		tracker.open();
		try {
			SwitchManager manager = tracker.waitForService(Duration.ofSeconds(30).toMillis());
			if (manager != null) {
				manager.track();
				awaitSwitches();
				manager.repository(gitDir).ifPresent(manager::requestCheck);
			}
			awaitSwitches();
		} finally {
			tracker.close();
		}
	}

	private static void awaitSwitches() throws InterruptedException {
		Job.getJobManager().join(SwitchManager.FAMILY, null);
	}

	// --------------------------------------------------------------------------------------- verify / prune

	private Object verify(Optional<String> repoPath) throws NotFoundException, IOException {
		StateService service = service();
		List<StateInfo> states = repoPath.isPresent() ? service.states(gitDir(repoPath.get())) : service.allStates();
		int bad = 0;
		for (StateInfo s : states) {
			try {
				service.verify(s, new NullProgressMonitor());
				out.println("ok " + s.commitId() + " " + s.archive()); //$NON-NLS-1$ //$NON-NLS-2$
			} catch (IOException e) {
				bad++;
				out.println("corrupt " + s.commitId() + " " + s.archive() + ": " + e.getMessage()); //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
			}
		}
		out.println(states.size() + " state(s), " + bad + " corrupt"); //$NON-NLS-1$ //$NON-NLS-2$
		return bad == 0 ? IApplication.EXIT_OK : BranchstateApplication.EXIT_PROBLEM;
	}

	private Object prune(Optional<String> repoPath) throws NotFoundException, IOException, CoreException {
		StateService service = service();
		StateStore store = service.store();
		List<StateInfo> states = repoPath.isPresent() ? service.states(gitDir(repoPath.get())) : service.allStates();
		List<StateInfo> gone = new ArrayList<>();
		for (StateInfo s : states) {
			if (!Files.isRegularFile(s.archive()) || !commitExists(s)) {
				gone.add(s);
			}
		}
		for (StateInfo s : store.remove(gone)) {
			out.println("pruned " + s.commitId() + " (commit or archive gone) " + s.gitDir()); //$NON-NLS-1$ //$NON-NLS-2$
		}
		for (Path p : store.cleanOrphans()) {
			out.println("deleted orphan " + p); //$NON-NLS-1$
		}
		for (StateInfo s : store.evictToBudget(StorePreferences.budgetBytes(), null)) {
			out.println("evicted " + s.commitId() + " (disk budget) " + s.gitDir()); //$NON-NLS-1$ //$NON-NLS-2$
		}
		return IApplication.EXIT_OK;
	}

	private static boolean commitExists(StateInfo s) {
		if (!s.gitDir().isDirectory()) {
			return false;
		}
		try (Repository repository = new FileRepositoryBuilder().setGitDir(s.gitDir()).setMustExist(true).build()) {
			return repository.getObjectDatabase().has(ObjectId.fromString(s.commitId()));
		} catch (IOException | IllegalArgumentException e) {
			return false;
		}
	}

	// -------------------------------------------------------------------------------------------- helpers

	static File gitDir(String repoPath) throws NotFoundException {
		File start = new File(repoPath).getAbsoluteFile();
		if (!start.exists()) {
			throw new NotFoundException("no such directory: " + start); //$NON-NLS-1$
		}
		File gitDir = new FileRepositoryBuilder().findGitDir(start).getGitDir();
		if (gitDir == null) {
			throw new NotFoundException("not in a Git repository: " + start); //$NON-NLS-1$
		}
		return StateStore.canonical(gitDir);
	}

	/** The state service's tracker, opened by the first command and kept: a serve session runs thousands of them. */
	private static ServiceTracker<IStateService, IStateService> tracker;

	static synchronized StateService service() throws NotFoundException {
		ResourcesPlugin.getWorkspace(); // starts core.resources, which registers the workspace service
		if (tracker == null) {
			BundleContext context = FrameworkUtil.getBundle(Commands.class).getBundleContext();
			// the tracker stays open while the application runs: it keeps the (delayed) component active
			tracker = new ServiceTracker<>(context, IStateService.class, null);
			tracker.open();
		}
		try {
			IStateService service = tracker.waitForService(Duration.ofSeconds(30).toMillis());
			if (service instanceof StateService s) {
				return s;
			}
			throw new NotFoundException("the state service is not available (is Declarative Services running?)"); //$NON-NLS-1$
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			throw new NotFoundException("interrupted while waiting for the state service"); //$NON-NLS-1$
		}
	}

	static final class UsageException extends Exception {
		private static final long serialVersionUID = 1L;

		UsageException(String message) {
			super(message);
		}
	}

	static final class NotFoundException extends Exception {
		private static final long serialVersionUID = 1L;

		NotFoundException(String message) {
			super(message);
		}
	}
}
