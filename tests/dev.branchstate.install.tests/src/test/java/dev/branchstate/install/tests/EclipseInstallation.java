package dev.branchstate.install.tests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A copy of the built IDE on disk that the tests install into, start and inspect — by running it as a separate
 * process with the same launcher a user has ({@code java -jar plugins/org.eclipse.equinox.launcher_*.jar}).
 */
final class EclipseInstallation {

	/** What one run of the IDE printed and returned. */
	record Run(int exitCode, String output) {
	}

	private static final Duration APP_TIMEOUT = Duration.ofMinutes(3);

	private final Path home;

	private EclipseInstallation(Path home) {
		this.home = home;
	}

	/** Copies the IDE at {@code product} into {@code target}: a fresh installation no test has touched. */
	static EclipseInstallation copyOf(Path product, Path target) throws IOException {
		if (!Files.isDirectory(product.resolve("plugins"))) {
			throw new IllegalStateException("No built IDE at " + product
					+ ": build releng/dev.branchstate.ide first (the README's test command builds everything)");
		}
		try (Stream<Path> files = Files.walk(product)) {
			for (Path source : (Iterable<Path>) files::iterator) {
				Path copy = target.resolve(product.relativize(source).toString());
				if (Files.isDirectory(source)) {
					Files.createDirectories(copy);
				} else {
					Files.copy(source, copy, StandardCopyOption.COPY_ATTRIBUTES);
				}
			}
		}
		return new EclipseInstallation(target);
	}

	Path home() {
		return home;
	}

	/** Runs an Eclipse application headless and waits for it. */
	Run runApplication(Path workspace, String application, String... arguments) throws IOException, InterruptedException {
		return runApplication(workspace, List.of(), application, arguments);
	}

	/**
	 * Runs an Eclipse application headless with extra launcher options (such as {@code -debug <options file>}) and
	 * waits for it.
	 */
	Run runApplication(Path workspace, List<String> options, String application, String... arguments)
			throws IOException, InterruptedException {
		List<String> command = launchCommand(workspace);
		command.addAll(options);
		command.add("-application");
		command.add(application);
		command.addAll(List.of(arguments));
		Path log = Files.createTempFile(home, "run", ".log");
		Process process = new ProcessBuilder(command).directory(home.toFile()).redirectErrorStream(true)
				.redirectOutput(log.toFile()).start();
		if (!process.waitFor(APP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
			process.destroyForcibly().waitFor();
			throw new AssertionError("'" + application + "' did not finish within " + APP_TIMEOUT + ":\n"
					+ Files.readString(log, StandardCharsets.UTF_8));
		}
		return new Run(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
	}

	/** Installs or uninstalls an installable unit with the IDE's own p2 director. */
	Run director(String operation, String repository, String unit) throws IOException, InterruptedException {
		return director(List.of(), operation, repository, unit);
	}

	/**
	 * Installs or uninstalls an installable unit with the IDE's own p2 director and more of its options (such as
	 * {@code -trustSignedContentOnly}).
	 */
	Run director(List<String> options, String operation, String repository, String unit)
			throws IOException, InterruptedException {
		List<String> arguments = new ArrayList<>(List.of("-repository", repository, operation, unit));
		arguments.addAll(options);
		return runApplication(home.resolve("director-workspace"), "org.eclipse.equinox.p2.director",
				arguments.toArray(String[]::new));
	}

	/** @return the symbolic names listed in the simple configurator's bundles.info, as the IDE will start them */
	List<String> configuredBundles() throws IOException {
		Path bundlesInfo = home.resolve("configuration/org.eclipse.equinox.simpleconfigurator/bundles.info");
		List<String> names = new ArrayList<>();
		for (String line : Files.readAllLines(bundlesInfo, StandardCharsets.UTF_8)) {
			if (!line.startsWith("#") && !line.isBlank()) {
				names.add(line.substring(0, line.indexOf(',')));
			}
		}
		return names;
	}

	/** What to do while the workbench runs, before the screenshot is taken. */
	@FunctionalInterface
	interface WhileRunning {
		void run() throws Exception;
	}

	/**
	 * Starts the IDE's workbench on a display (the tests run under Xvfb), waits until its main window is laid out,
	 * runs {@code whileRunning}, saves a screenshot of the screen, then closes the IDE.
	 *
	 * @return whether the window appeared before the timeout
	 */
	boolean startWorkbench(Path workspace, Path screenshot, Duration timeout, WhileRunning whileRunning)
			throws Exception {
		if (System.getenv("DISPLAY") == null) {
			throw new IllegalStateException("No DISPLAY: run the tests through ./launch, which starts Xvfb");
		}
		Files.createDirectories(workspace);
		Path log = workspace.resolve("workbench-console.log");
		Process ide = new ProcessBuilder(launchCommand(workspace)).directory(home.toFile()).redirectErrorStream(true)
				.redirectOutput(log.toFile()).start();
		try {
			long deadline = System.nanoTime() + timeout.toNanos();
			String title = workspace.getFileName().toString();
			while (System.nanoTime() < deadline && ide.isAlive()) {
				if (hasLaidOutWindow(title)) {
					try {
						whileRunning.run();
					} finally { // a picture also when it failed: it shows what the user would have seen
						Thread.sleep(3000); // let the views paint before the picture
						Files.createDirectories(screenshot.getParent());
						exec(List.of("import", "-window", "root", screenshot.toString()));
					}
					return true;
				}
				Thread.sleep(500);
			}
			return false;
		} finally {
			ide.destroy();
			if (!ide.waitFor(30, TimeUnit.SECONDS)) {
				ide.destroyForcibly().waitFor();
			}
		}
	}

	/** A top-level window titled after the workspace and bigger than SWT's 200x200 placeholder. */
	private static boolean hasLaidOutWindow(String title) throws IOException, InterruptedException {
		Pattern window = Pattern.compile("\"" + Pattern.quote(title) + "[^\"]*\":.*?\\s(\\d+)x(\\d+)\\+");
		for (String line : exec(List.of("xwininfo", "-root", "-tree")).split("\n")) {
			Matcher m = window.matcher(line);
			if (m.find() && Integer.parseInt(m.group(1)) >= 400 && Integer.parseInt(m.group(2)) >= 300) {
				return true;
			}
		}
		return false;
	}

	private List<String> launchCommand(Path workspace) throws IOException {
		Path launcher;
		try (Stream<Path> jars = Files.list(home.resolve("plugins"))) {
			launcher = jars.filter(p -> p.getFileName().toString().startsWith("org.eclipse.equinox.launcher_"))
					.findFirst().orElseThrow(() -> new IllegalStateException("no equinox launcher in " + home));
		}
		Path java = Path.of(System.getProperty("java.home"), "bin", "java");
		return new ArrayList<>(List.of(java.toString(), "-Xmx1g", "-jar", launcher.toString(), "-nosplash",
				"-consoleLog", "-data", workspace.toString()));
	}

	static String exec(List<String> command) throws IOException, InterruptedException {
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		if (process.waitFor() != 0) {
			throw new UncheckedIOException(new IOException(command + " failed: " + output));
		}
		return output;
	}
}
