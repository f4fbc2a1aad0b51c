package dev.branchstate.core.internal.app;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.eclipse.core.runtime.IExtension;
import org.eclipse.core.runtime.IExtensionPoint;
import org.eclipse.core.runtime.Platform;
import org.eclipse.equinox.app.IApplication;
import org.eclipse.equinox.app.IApplicationContext;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.FrameworkUtil;


/**
 * Headless entry point: {@code -application dev.branchstate.core.app <command> [args]}, on the workspace given with
 * {@code -data}. Commands:
 * <ul>
 * <li>{@code status}: the Branchstate bundles and contributions;</li>
 * <li>{@code import <repoPath> [--derived=<globs>]}: imports the Eclipse projects found in the repository's work
 * tree (or creates one general project at its root when there is none), and removes from the workspace the closed
 * projects of the work tree whose description is gone (their files stay on disk); {@code --derived} sets the workspace's
 * {@code derivedFolders} preference (e.g. {@code --derived=bin,target}), needed when no derived flag is set yet;</li>
 * <li>{@code list [<repoPath>]}: the stored states, newest first;</li>
 * <li>{@code save <repoPath>}: refreshes the repository's projects, waits until the background jobs are done (an
 * index brought up to date after the refresh, say: {@link BackgroundJobs}) and saves their state for HEAD;</li>
 * <li>{@code restore <repoPath> [<commit>...]}: restores the state of each commit in turn (default: HEAD);</li>
 * <li>{@code delete <repoPath> [<commit>]}: deletes the stored states of the repository, all of them or the one of
 * the commit;</li>
 * <li>{@code switch <repoPath> <branch>... [--without-branchstate]}: checks the branches out with JGit one after the
 * other, as in one IDE session, waits until each switch is handled, the projects built and the background jobs done,
 * and prints the times and a machine-readable {@code result} line per switch; {@code --without-branchstate} turns
 * automatic switching off ({@code --with-branchstate} on) for every switch when given last, or for the switches
 * after it; {@code --delete-states} and {@code --clean-build} between branches delete the stored states or clean and
 * build the projects in full there ({@link SwitchCommand});</li>
 * <li>{@code verify [<repoPath>]}: reads every state archive completely (sizes, CRC-32);</li>
 * <li>{@code build <repoPath> [--problems]}: handles a pending switch (a terminal checkout while no IDE ran),
 * refreshes and builds the repository's projects, waits for the background jobs; {@code --problems} then prints
 * the problem markers;</li>
 * <li>{@code problems <repoPath>}: one line per problem marker of the repository's projects (path, line, severity,
 * id, type, message), sorted;</li>
 * <li>{@code prune [<repoPath>]}: deletes states whose commit or archive is gone, orphan files of crashed saves,
 * and least-recently-used states beyond the disk budget;</li>
 * <li>{@code publish}, {@code fetch}, {@code published}, {@code remote-keys}: remote states ({@link RemoteCommands});</li>
 * <li>{@code auto-switch on|off|default}: automatic switching in the workspace's preferences ({@link AutoSwitchCommand});</li>
 * <li>{@code await-switch <repo>}: in a running session, waits until its own detection has handled HEAD as it is
 * now ({@link AwaitSwitchCommand});</li>
 * <li>{@code dump <folder>}: what installed services derive (the Java index), dumped into the folder now
 * ({@link DumpCommand});</li>
 * <li>{@code serve [<file>]}: one long-lived session that runs the command lines it reads from standard input (or
 * the file: a named pipe), each answered with its output and an end line with its exit code ({@link CommandServer}).</li>
 * </ul>
 * Exit code 0 on success, 1 when the command failed or found a problem, 2 on a usage error, 3 when the repository
 * or the state does not exist. Errors are one line on standard error.
 */
public final class BranchstateApplication implements IApplication {

	static final Integer EXIT_PROBLEM = Integer.valueOf(1);
	static final Integer EXIT_USAGE = Integer.valueOf(2);
	static final Integer EXIT_NOT_FOUND = Integer.valueOf(3);

	@Override
	public Object start(IApplicationContext context) throws Exception {
		String[] args = (String[]) context.getArguments().get(IApplicationContext.APPLICATION_ARGS);
		try (BackgroundJobs jobs = BackgroundJobs.watch()) {
			Object exit = run(args == null ? List.of() : Arrays.asList(args), System.out, System.err);
			// what the command's last steps scheduled (a workspace save makes JDT initialize classpath containers,
			// PDE then updates "Plug-in Dependencies" in a job) ends before the framework stops: a job still running
			// then can deadlock the shutdown (seen with PDE: a bundle started lazily by the job while SCR stops)
			jobs.await(new PrintStream(OutputStream.nullOutputStream()), Duration.ofMinutes(1));
			return exit;
		}
	}

	/**
	 * Runs one command line of the application in this runtime (internal: the application, and tests that run a
	 * command as a user types it). @return the exit code
	 */
	public static Object run(List<String> arguments, PrintStream out, PrintStream err) {
		if (arguments.isEmpty()) {
			return usage("no command given");
		}
		if ("status".equals(arguments.get(0))) { //$NON-NLS-1$
			return status(out);
		}
		List<String> args = arguments.subList(1, arguments.size());
		return switch (arguments.get(0)) {
		case "switch" -> SwitchCommand.run(args, out, err); //$NON-NLS-1$
		case "serve" -> CommandServer.run(args, out); //$NON-NLS-1$
		case "dump" -> DumpCommand.run(args, out, err); //$NON-NLS-1$
		case "auto-switch" -> AutoSwitchCommand.run(args, out, err); //$NON-NLS-1$
		case "await-switch" -> awaitSwitch(args, out, err); //$NON-NLS-1$
		default -> new Commands(out, err).run(arguments);
		};
	}

	private static Object awaitSwitch(List<String> args, PrintStream out, PrintStream err) {
		try {
			return AwaitSwitchCommand.run(args, out, err);
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			err.println("branchstate: interrupted"); //$NON-NLS-1$
			return EXIT_PROBLEM;
		}
	}

	static Object usage(String problem) {
		System.err.println("branchstate: " + problem //$NON-NLS-1$
				+ ". Commands: status, import <repo> [--derived=<globs>], list [<repo>], save <repo>, restore <repo> [<commit>...], delete <repo> [<commit>], verify [<repo>], prune [<repo>], build <repo> [--problems], problems <repo>, auto-switch on|off|default, await-switch <repo>, dump <folder>, serve [<file>], publish <repo> [<commit>] --signing-key=<pem>, fetch <repo> [<commit>], published <repo>, remote-keys <folder>, switch <repo> <branch>|--delete-states|--clean-build... [--without-branchstate|--with-branchstate]"); //$NON-NLS-1$
		return EXIT_USAGE;
	}

	/**
	 * Prints one line per Branchstate bundle ({@code bundle <name> <version> <state>}), after starting each one
	 * that is only resolved, and one line per registered contribution. Exit code 1 when a bundle is not active or
	 * the extension point is missing.
	 */
	private static Object status(PrintStream out) {
		BundleContext context = FrameworkUtil.getBundle(BranchstateApplication.class).getBundleContext();
		boolean healthy = true;
		int count = 0;
		for (Bundle bundle : context.getBundles()) {
			if (!bundle.getSymbolicName().startsWith("dev.branchstate.")) {
				continue;
			}
			count++;
			String problem = "";
			if (bundle.getState() == Bundle.RESOLVED || bundle.getState() == Bundle.STARTING) {
				try {
					bundle.start(Bundle.START_TRANSIENT);
				} catch (BundleException e) {
					problem = " (" + e.getMessage() + ")";
				}
			}
			boolean active = bundle.getState() == Bundle.ACTIVE;
			healthy &= active;
			out.println("bundle " + bundle.getSymbolicName() + " " + bundle.getVersion() + " "
					+ stateName(bundle.getState()) + problem);
		}
		if (count == 0) {
			out.println("no Branchstate bundle is installed");
			healthy = false;
		}
		IExtensionPoint point = Platform.getExtensionRegistry().getExtensionPoint("dev.branchstate.core.contributors");
		out.println("extension-point dev.branchstate.core.contributors " + (point == null ? "missing" : "registered"));
		healthy &= point != null;
		for (String pointId : List.of("org.eclipse.ui.commands", "org.eclipse.ui.menus", "org.eclipse.ui.handlers",
				"org.eclipse.ui.preferencePages", "org.eclipse.ui.views", "dev.branchstate.core.contributors")) {
			IExtensionPoint p = Platform.getExtensionRegistry().getExtensionPoint(pointId);
			if (p == null) {
				continue;
			}
			for (IExtension extension : p.getExtensions()) {
				String contributor = extension.getContributor().getName();
				if (contributor.startsWith("dev.branchstate.")) {
					for (var element : extension.getConfigurationElements()) {
						String id = element.getAttribute("id");
						out.println("contribution " + pointId + " " + element.getName() + (id == null ? "" : " " + id)
								+ " from " + contributor);
					}
				}
			}
		}
		return healthy ? IApplication.EXIT_OK : EXIT_PROBLEM;
	}

	private static String stateName(int state) {
		return switch (state) {
		case Bundle.INSTALLED -> "INSTALLED";
		case Bundle.RESOLVED -> "RESOLVED";
		case Bundle.STARTING -> "STARTING";
		case Bundle.STOPPING -> "STOPPING";
		case Bundle.ACTIVE -> "ACTIVE";
		default -> "UNINSTALLED";
		};
	}

	@Override
	public void stop() {
		// the commands are short and not interruptible
	}
}
