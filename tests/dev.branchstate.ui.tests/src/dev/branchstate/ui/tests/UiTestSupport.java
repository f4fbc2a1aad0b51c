package dev.branchstate.ui.tests;

import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IFolder;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.ProjectScope;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.preferences.IEclipsePreferences;
import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.swt.SWT;
import org.eclipse.swt.graphics.GC;
import org.eclipse.swt.graphics.Image;
import org.eclipse.swt.graphics.ImageData;
import org.eclipse.swt.graphics.ImageLoader;
import org.eclipse.swt.graphics.Rectangle;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Display;
import org.eclipse.swt.widgets.Event;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Menu;
import org.eclipse.swt.widgets.MenuItem;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.swt.widgets.Text;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.ServiceReference;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.core.IStateService;
import dev.branchstate.core.StateEvent;

/** Helpers: event-loop waits, Git repositories as workspace projects, widget look-ups, screenshots. */
final class UiTestSupport {

	private UiTestSupport() {
	}

	/** Runs the event loop until {@code condition} holds; fails with {@code what} after {@code timeout}. */
	static void waitUntil(String what, Duration timeout, BooleanSupplier condition) {
		Display display = Display.getCurrent();
		long end = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > end) {
				fail("Timed out after " + timeout.toSeconds() + " s waiting for: " + what);
			}
			if (display == null || !display.readAndDispatch()) {
				try {
					Thread.sleep(10);
				} catch (InterruptedException e) {
					Thread.currentThread().interrupt();
					fail("interrupted");
				}
			}
		}
	}

	/** Runs the pending events of the display, so that asyncExec'd work is done. */
	static void processEvents() {
		Display display = Display.getCurrent();
		while (display != null && display.readAndDispatch()) {
			// drain
		}
	}

	/** Makes a Git repository (branch main, one commit) at {@code dir}. */
	static Git initRepository(Path dir) throws IOException, GitAPIException {
		Files.createDirectories(dir);
		Git git = Git.init().setDirectory(dir.toFile()).setInitialBranch("main").call();
		Files.writeString(dir.resolve("README.md"), "# demo\n");
		Files.createDirectories(dir.resolve("src"));
		Files.writeString(dir.resolve("src/Main.java"), "class Main {}\n");
		Files.writeString(dir.resolve(".gitignore"), "bin/\n");
		git.add().addFilepattern(".").call();
		git.commit().setMessage("Initial commit: README and Main").setSign(false).call();
		return git;
	}

	static void commit(Git git, String file, String content, String message) throws IOException, GitAPIException {
		Path path = git.getRepository().getWorkTree().toPath().resolve(file);
		Files.createDirectories(path.getParent());
		Files.writeString(path, content);
		git.add().addFilepattern(file).call();
		git.commit().setMessage(message).setSign(false).call();
	}

	/** Imports the work tree of {@code git} as a workspace project at its own location. */
	static IProject importProject(String name, File location) throws CoreException {
		IWorkspace workspace = ResourcesPlugin.getWorkspace();
		IProject project = workspace.getRoot().getProject(name);
		IProjectDescription description = workspace.newProjectDescription(name);
		description.setLocation(IPath.fromOSString(location.getAbsolutePath()));
		project.create(description, null);
		project.open(null);
		return project;
	}

	static void delete(IProject project) throws CoreException {
		if (project != null && project.exists()) {
			project.delete(false, true, null); // keep the contents: JUnit's @TempDir removes them
		}
	}

	/**
	 * Points the real state service at a store folder of the test's own (the Store Location preference), so that
	 * the states of other tests do not show; {@code null} goes back to the default store.
	 */
	static void useStore(Path directory) {
		IEclipsePreferences node = InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE);
		if (directory == null) {
			node.remove(BranchstatePreferences.STORE_LOCATION);
		} else {
			node.put(BranchstatePreferences.STORE_LOCATION, directory.toString());
		}
	}

	/**
	 * Project preferences, as the user sets them on the project's Branchstate page: {@code bin} is derived data, and
	 * no automatic save or restore on a branch switch (the test saves and restores when it chooses).
	 */
	static void saveBinManually(IProject project) {
		IEclipsePreferences node = new ProjectScope(project).getNode(BranchstatePreferences.NODE);
		node.put(BranchstatePreferences.DERIVED_FOLDERS, "bin");
		node.putBoolean(BranchstatePreferences.AUTO_SWITCH, false);
	}

	/** Replaces the project's bin folder with these files (name to content), as a build would. */
	static void writeBin(IProject project, Map<String, String> files) throws CoreException {
		IFolder bin = project.getFolder("bin");
		if (bin.exists()) {
			bin.delete(true, null);
		}
		bin.create(true, true, null);
		for (Map.Entry<String, String> e : files.entrySet()) {
			IFile file = bin.getFile(e.getKey());
			file.create(e.getValue().getBytes(StandardCharsets.UTF_8), true, false, null);
		}
	}

	static String read(IFile file) throws CoreException, IOException {
		try (var in = file.getContents(true)) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

	/**
	 * Waits until the core has handled a HEAD move made from "the terminal" (its switch job reports it with an
	 * event, here SKIPPED: automatic switching is off) and no event has come for a second.
	 */
	static void settle(List<StateEvent> events) {
		long[] last = { System.nanoTime() };
		int[] count = { events.size() };
		waitUntil("the core to settle after a HEAD move", Duration.ofSeconds(30), () -> {
			if (events.size() != count[0]) {
				count[0] = events.size();
				last[0] = System.nanoTime();
			}
			return System.nanoTime() - last[0] > Duration.ofSeconds(1).toNanos();
		});
	}

	/** @return the text field that follows the label with {@code labelText} (mnemonics ignored) */
	static Text textAfterLabel(Composite root, String labelText) {
		Control[] children = root.getChildren();
		for (int i = 0; i < children.length; i++) {
			if (children[i] instanceof Label label && label.getText().replace("&", "").equals(labelText.replace("&", ""))) {
				for (int j = i + 1; j < children.length; j++) {
					if (children[j] instanceof Text text) {
						return text;
					}
				}
			}
			if (children[i] instanceof Composite composite) {
				Text found = textAfterLabel(composite, labelText);
				if (found != null) {
					return found;
				}
			}
		}
		return null;
	}

	/**
	 * Saves what the screen shows inside {@code shell}'s client area (popups over it included) as a PNG under the
	 * {@code screenshots.dir} system property (target/screenshots).
	 */
	static Path screenshot(Shell shell, String name) throws IOException {
		Display display = shell.getDisplay();
		// GTK paints on its frame clock: give it time, or the capture shows an older frame
		long end = System.currentTimeMillis() + 700;
		while (System.currentTimeMillis() < end) {
			processEvents();
			try {
				Thread.sleep(20);
			} catch (InterruptedException e) {
				Thread.currentThread().interrupt();
			}
		}
		Rectangle bounds = display.map(shell, null, shell.getClientArea());
		Image image = new Image(display, bounds.width, bounds.height);
		try {
			GC gc = new GC(display);
			try {
				gc.copyArea(image, bounds.x, bounds.y);
			} finally {
				gc.dispose();
			}
			ImageData data = image.getImageData();
			Path dir = Path.of(System.getProperty("screenshots.dir", "target/screenshots"));
			Files.createDirectories(dir);
			Path file = dir.resolve(name + ".png");
			ImageLoader loader = new ImageLoader();
			loader.data = new ImageData[] { data };
			loader.save(file.toString(), SWT.IMAGE_PNG);
			return file;
		} finally {
			image.dispose();
		}
	}

	/** The core service, waiting a little for Declarative Services to register it. */
	static IStateService realService() {
		BundleContext context = FrameworkUtil.getBundle(UiTestSupport.class).getBundleContext();
		long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
		while (System.nanoTime() < end) {
			try {
				for (ServiceReference<IStateService> ref : context.getServiceReferences(IStateService.class, null)) {
					IStateService service = context.getService(ref);
					if (service != null) {
						return service;
					}
				}
			} catch (org.osgi.framework.InvalidSyntaxException e) {
				throw new IllegalStateException(e);
			}
			UiTestSupport.processEvents();
			try {
				Thread.sleep(100);
			} catch (InterruptedException e) {
				Thread.currentThread().interrupt();
			}
		}
		return fail("No IStateService is registered by dev.branchstate.core: the state service (a DS component) "
				+ "is missing or failed to activate, so Save State cannot store anything.");
	}

	/** Presses the button of the dialog with that title once it is open (the command's event loop runs it). */
	static void pressWhenShown(String title, String button, AtomicReference<String> seen) {
		pressWhenShown(title, button, seen, null);
	}

	/** The same, saving a screenshot of the dialog first when {@code screenshot} is not null. */
	static void pressWhenShown(String title, String button, AtomicReference<String> seen, String screenshot) {
		Display display = Display.getCurrent();
		long end = System.currentTimeMillis() + 20_000;
		Runnable[] poll = new Runnable[1];
		poll[0] = () -> {
			for (Shell shell : display.getShells()) {
				if (shell.isVisible() && title.equals(shell.getText())) {
					Button b = findButton(shell, button);
					if (b != null && b.isEnabled()) {
						seen.set(shell.getText());
						if (screenshot != null) {
							try {
								screenshot(shell, screenshot);
							} catch (IOException e) {
								throw new java.io.UncheckedIOException(e);
							}
						}
						b.notifyListeners(SWT.Selection, new Event());
						return;
					}
				}
			}
			if (System.currentTimeMillis() < end) {
				display.timerExec(100, poll[0]);
			}
		};
		display.timerExec(100, poll[0]);
	}

	static Button findButton(Composite parent, String text) {
		for (Control c : parent.getChildren()) {
			if (c instanceof Button b && b.getText().replace("&", "").equals(text)) {
				return b;
			}
			if (c instanceof Composite composite) {
				Button b = findButton(composite, text);
				if (b != null) {
					return b;
				}
			}
		}
		return null;
	}

	/** @return the labels of a menu's items after it was told it is about to show (contributions are added then) */
	static List<String> shown(Menu menu) {
		menu.notifyListeners(SWT.Show, new Event());
		UiTestSupport.processEvents();
		List<String> labels = Arrays.stream(menu.getItems()).map(UiTestSupport::label).toList();
		if (menu.getParentMenu() != null || menu.getParentItem() != null) {
			menu.notifyListeners(SWT.Hide, new Event());
		}
		return labels;
	}

	static String label(MenuItem item) {
		String text = item.getText().replace("&", "");
		int tab = text.indexOf('\t');
		return tab < 0 ? text : text.substring(0, tab);
	}
}
