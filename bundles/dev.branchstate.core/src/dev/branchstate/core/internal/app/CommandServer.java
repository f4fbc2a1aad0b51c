package dev.branchstate.core.internal.app;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.eclipse.equinox.app.IApplication;

/**
 * The headless command {@code serve [<file>]}: one long-lived session driven through a command channel. Reads
 * command lines from standard input, or from the file given (a named pipe, say), and runs each as the application
 * runs its command line, in this running workspace, one after the other: {@code switch}, {@code build},
 * {@code save}, {@code restore}, {@code delete}, {@code verify}, {@code list}, {@code auto-switch}, {@code dump}...
 * The arguments of a line are separated by tabs when it holds one (paths with blanks), else by blanks; empty lines
 * and lines starting with {@code #} are skipped. Each command's output (its errors included, as lines on standard
 * output) is followed by its end line, {@value #END}{@code <exit code>}, flushed: a driver reads up to it. A line
 * {@code exit}, or the end of the input, ends the session as the application ends (the workspace saved by the
 * platform's shutdown, what bundles write at exit written), with exit code 0.
 * <p>
 * What users get from a running IDE is what the commands then meet: a checkout in a terminal while the session runs
 * is noticed by the session's own HEAD watch and refresh, not by a new start.
 */
final class CommandServer {

	/** The start of the line that ends each command's output; the exit code follows. */
	static final String END = "branchstate-serve: end exit="; //$NON-NLS-1$
	private static final String EXIT = "exit"; //$NON-NLS-1$

	private CommandServer() {
	}

	static Object run(List<String> args, PrintStream out) {
		if (args.size() > 1) {
			return BranchstateApplication.usage("serve takes at most one file to read commands from"); //$NON-NLS-1$
		}
		try (BufferedReader in = args.isEmpty()
				? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
				: Files.newBufferedReader(Path.of(args.get(0)), StandardCharsets.UTF_8)) {
			out.println("serving"); //$NON-NLS-1$
			out.flush();
			String line;
			while ((line = in.readLine()) != null) {
				String command = line.strip();
				if (command.isEmpty() || command.startsWith("#")) { //$NON-NLS-1$
					continue;
				}
				if (EXIT.equals(command)) {
					break;
				}
				out.println(END + runOne(arguments(line), out));
				out.flush();
			}
			return IApplication.EXIT_OK;
		} catch (IOException e) {
			System.err.println("branchstate: the command channel failed: " + e.getMessage()); //$NON-NLS-1$
			return BranchstateApplication.EXIT_PROBLEM;
		}
	}

	/** @return the arguments of a command line: separated by tabs when it holds one, else by blanks */
	static List<String> arguments(String line) {
		String separator = line.indexOf('\t') >= 0 ? "\t" : "\\s+"; //$NON-NLS-1$ //$NON-NLS-2$
		return Arrays.stream(line.strip().split(separator)).filter(a -> !a.isEmpty()).toList();
	}

	private static Object runOne(List<String> arguments, PrintStream out) {
		if ("serve".equals(arguments.get(0))) { //$NON-NLS-1$
			return BranchstateApplication.usage("serve runs already"); //$NON-NLS-1$
		}
		try {
			return BranchstateApplication.run(arguments, out, out);
		} catch (RuntimeException e) {
			out.println("branchstate: " + e); //$NON-NLS-1$
			return BranchstateApplication.EXIT_PROBLEM;
		}
	}
}
