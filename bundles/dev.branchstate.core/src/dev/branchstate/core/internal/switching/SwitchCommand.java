package dev.branchstate.core.internal.switching;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.IncrementalProjectBuilder;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.jgit.api.CreateBranchCommand.SetupUpstreamMode;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.util.tracker.ServiceTracker;

import dev.branchstate.core.IStateListener;
import dev.branchstate.core.IStateService;
import dev.branchstate.core.StateEvent;

/**
 * The headless command {@code switch <repoPath> <branch>}: checks the branch out with JGit in this process (as an
 * in-IDE checkout would), waits until Branchstate has handled the switch, refreshes and builds the repository's
 * projects, and prints what happened with timings. Exit code 0, 1 when the switch failed or the repository holds no
 * project of the workspace, 2 on a usage error.
 */
public final class SwitchCommand {

	private static final long SERVICE_TIMEOUT_MS = 30_000;
	private static final long SWITCH_TIMEOUT_MS = 30 * 60_000;

	private SwitchCommand() {
	}

	public static Integer run(List<String> arguments, PrintStream out, PrintStream err) {
		if (arguments.size() != 2) {
			err.println("branchstate: usage: switch <repoPath> <branch>"); //$NON-NLS-1$
			return Integer.valueOf(2);
		}
		File start = new File(arguments.get(0)).getAbsoluteFile();
		String branch = arguments.get(1);
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
		try {
			SwitchManager manager = managers.waitForService(SERVICE_TIMEOUT_MS);
			IStateService stateService = services.waitForService(SERVICE_TIMEOUT_MS);
			if (manager == null || stateService == null) {
				err.println("branchstate: the state service is not running"); //$NON-NLS-1$
				return Integer.valueOf(1);
			}
			return run(manager, stateService, builder, branch, out, err);
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			err.println("branchstate: interrupted"); //$NON-NLS-1$
			return Integer.valueOf(1);
		} finally {
			managers.close();
			services.close();
		}
	}

	private static Integer run(SwitchManager manager, IStateService stateService, FileRepositoryBuilder builder,
			String branch, PrintStream out, PrintStream err) throws InterruptedException {
		manager.track();
		Optional<File> followed = manager.repository(builder.getGitDir());
		if (followed.isEmpty()) {
			err.println("branchstate: no open project of the workspace is in " + builder.getGitDir()); //$NON-NLS-1$
			return Integer.valueOf(1);
		}
		File gitDir = followed.get();
		String key = SwitchManager.key(gitDir);
		long t0 = System.nanoTime();
		AtomicBoolean failed = new AtomicBoolean();
		IStateListener listener = event -> {
			if (event.gitDir() != null && SwitchManager.key(event.gitDir()).equals(key)) {
				failed.compareAndSet(false, event.kind() == StateEvent.Kind.FAILED);
				out.println(format(event, t0));
			}
		};
		stateService.addStateListener(listener);
		try {
			awaitSwitches(); // a switch still pending from before, e.g. HEAD moved while Eclipse was closed
			long checkoutStart = System.nanoTime();
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
			out.println("checkout " + branch + " " + millis(checkoutStart) + " ms"); //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
			long switchStart = System.nanoTime();
			manager.requestCheck(gitDir);
			awaitSwitches();
			out.println("switch handled " + millis(switchStart) + " ms"); //$NON-NLS-1$ //$NON-NLS-2$
			long buildStart = System.nanoTime();
			IWorkspace workspace = ResourcesPlugin.getWorkspace();
			try {
				for (IProject project : workspace.getRoot().getProjects()) {
					if (project.isOpen() && stateService.repositoryOf(project).map(SwitchManager::key)
							.filter(key::equals).isPresent()) {
						project.refreshLocal(IResource.DEPTH_INFINITE, null);
					}
				}
				workspace.build(IncrementalProjectBuilder.INCREMENTAL_BUILD, null);
				Job.getJobManager().join(ResourcesPlugin.FAMILY_AUTO_BUILD, null);
			} catch (CoreException e) {
				err.println("branchstate: build failed: " + e.getStatus().getMessage()); //$NON-NLS-1$
				return Integer.valueOf(1);
			}
			out.println("refresh and build " + millis(buildStart) + " ms"); //$NON-NLS-1$ //$NON-NLS-2$
			out.println("total " + millis(t0) + " ms"); //$NON-NLS-1$ //$NON-NLS-2$
			return Integer.valueOf(failed.get() ? 1 : 0);
		} finally {
			stateService.removeStateListener(listener);
		}
	}

	private static void awaitSwitches() throws InterruptedException {
		long deadline = System.currentTimeMillis() + SWITCH_TIMEOUT_MS;
		for (Job job : Job.getJobManager().find(SwitchManager.FAMILY)) {
			job.join(Math.max(1, deadline - System.currentTimeMillis()), null);
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
