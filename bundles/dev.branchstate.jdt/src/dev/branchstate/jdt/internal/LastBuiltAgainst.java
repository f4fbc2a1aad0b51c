package dev.branchstate.jdt.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.ILog;
import org.eclipse.core.runtime.Platform;
import org.eclipse.jdt.core.IJavaProject;
import org.eclipse.jdt.core.compiler.CompilationParticipant;
import org.osgi.framework.FrameworkUtil;

/**
 * What each Java project's output was last built against ({@link JavaCompatibility}): taken when JDT finishes a
 * build of the project (a compilation participant: JDT tells it after every build, also one that compiled nothing
 * or failed), and set when a restore hands the project a state built against what that state names. Kept across
 * sessions in the bundle's state location, one small file a project, as JDT keeps its build state.
 * <p>
 * Why not tell it from JDT's model when a state is saved: a state is saved at a switch after the checkout, and a
 * project whose configuration JDT has not read yet in the session (its {@code .settings}, its build path: the first
 * switch after a start, before any build of the project) is then read from the branch entered — the description
 * would be the branch entered's, not the saved output's, and the state refused at every restore. Only a project
 * never built since Branchstate was installed is told from the model.
 */
public final class LastBuiltAgainst extends CompilationParticipant {

	private static final Map<String, JavaCompatibility.Snapshot> BY_PROJECT = new ConcurrentHashMap<>();
	private static final String BUILT = "built"; //$NON-NLS-1$
	private static final String TOLD = "told"; //$NON-NLS-1$

	@Override
	public boolean isActive(IJavaProject project) {
		return true;
	}

	/** Takes the configuration the build ran with; the libraries' contents are hashed when a state is saved. */
	@Override
	public void buildFinished(IJavaProject project) {
		JavaCompatibility.Snapshot snapshot;
		try {
			snapshot = JavaCompatibility.snapshot(project.getProject());
		} catch (CoreException e) {
			snapshot = null;
		}
		remember(project.getElementName(), snapshot);
	}

	/** @return what the project's output was built against, as {@link JavaCompatibility#of} tells it */
	static String of(IProject project) throws CoreException {
		JavaCompatibility.Snapshot last = BY_PROJECT.computeIfAbsent(project.getName(), LastBuiltAgainst::read);
		return last != null ? JavaCompatibility.describe(last) : JavaCompatibility.of(project);
	}

	/** A restore hands the project output built against {@code then}. */
	static void restored(IProject project, String then) {
		remember(project.getName(), JavaCompatibility.Snapshot.told(then));
	}

	private static void remember(String project, JavaCompatibility.Snapshot snapshot) {
		JavaCompatibility.Snapshot before = snapshot == null ? BY_PROJECT.remove(project)
				: BY_PROJECT.put(project, snapshot);
		if (snapshot != null && snapshot.equals(before)) {
			return; // most builds: the configuration did not change, the file on disk already says it
		}
		Path file = file(project);
		if (file == null) {
			return;
		}
		try {
			if (snapshot == null) {
				Files.deleteIfExists(file);
				return;
			}
			Files.createDirectories(file.getParent());
			Path written = file.resolveSibling(file.getFileName() + ".new"); //$NON-NLS-1$
			Files.writeString(written, encode(snapshot), StandardCharsets.UTF_8);
			Files.move(written, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
		} catch (IOException e) {
			ILog.of(LastBuiltAgainst.class).warn("Cannot keep what " + project + " was built against: " + e.getMessage()); //$NON-NLS-1$ //$NON-NLS-2$
		}
	}

	/** @return the snapshot kept for the project in an earlier session, {@code null} when none can be read */
	private static JavaCompatibility.Snapshot read(String project) {
		Path file = file(project);
		if (file == null || !Files.isRegularFile(file)) {
			return null;
		}
		try {
			return decode(Files.readAllLines(file, StandardCharsets.UTF_8));
		} catch (IOException | RuntimeException e) {
			return null; // told from the model, as before any build
		}
	}

	private static String encode(JavaCompatibility.Snapshot snapshot) {
		StringBuilder b = new StringBuilder();
		if (snapshot.libraries() == null) {
			return b.append(TOLD).append('\n').append(snapshot.compiler()).append('\n').toString();
		}
		b.append(BUILT).append('\n').append(snapshot.compiler()).append('\n');
		for (JavaCompatibility.Stamp library : snapshot.libraries()) {
			b.append(library.path()).append('\t').append(library.size()).append('\t').append(library.modified()).append('\n');
		}
		return b.toString();
	}

	private static JavaCompatibility.Snapshot decode(List<String> lines) {
		if (lines.size() < 2) {
			return null;
		}
		if (lines.get(0).equals(TOLD)) {
			return JavaCompatibility.Snapshot.told(lines.get(1));
		}
		if (!lines.get(0).equals(BUILT)) {
			return null;
		}
		List<JavaCompatibility.Stamp> libraries = new ArrayList<>();
		for (String line : lines.subList(2, lines.size())) {
			String[] f = line.split("\t", -1); //$NON-NLS-1$
			if (f.length != 3) {
				return null;
			}
			libraries.add(new JavaCompatibility.Stamp(f[0], Long.parseLong(f[1]), Long.parseLong(f[2])));
		}
		return new JavaCompatibility.Snapshot(lines.get(1), List.copyOf(libraries));
	}

	/** @return the project's file in the bundle's state location; {@code null} outside a running platform */
	private static Path file(String project) {
		var bundle = FrameworkUtil.getBundle(LastBuiltAgainst.class);
		if (bundle == null || !Platform.isRunning()) {
			return null;
		}
		return Platform.getStateLocation(bundle).toPath().resolve("last-built-against").resolve(project + ".txt"); //$NON-NLS-1$ //$NON-NLS-2$
	}
}
