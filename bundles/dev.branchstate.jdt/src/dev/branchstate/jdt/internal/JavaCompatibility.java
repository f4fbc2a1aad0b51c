package dev.branchstate.jdt.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.Status;
import org.eclipse.jdt.core.IClasspathEntry;
import org.eclipse.jdt.core.IJavaProject;
import org.eclipse.jdt.core.JavaCore;

/**
 * What makes a Java project's output and builder state built on one machine unusable on another, for the
 * compatibility key of remote states: the JDT version, the compiler options in effect (compliance, source and target
 * levels, {@code --release}, which may come from workspace preferences that Git does not carry), and every library
 * outside the workspace that the project compiles against — its path (JDT's builder state holds it, and builds in
 * full when it changes) and the SHA-256 of its content (a JDK or jar of the same path but another build would
 * otherwise slip through). For a modular JDK, whose classpath entry is {@code lib/jrt-fs.jar}, the JDK's
 * {@code release} file is hashed with it. Hashes are cached per path, size and modification time.
 * <p>
 * Taken from JDT's model when JDT finishes a build ({@link LastBuiltAgainst}: what the output was built against), the
 * libraries hashed when a state is saved. Checked against the disk before a restore ({@link #holds}): right after a
 * checkout the model may still describe the branch left (its {@code .classpath}, its {@code .settings}, the manifest
 * "Plug-in Dependencies" was resolved from) until the workspace is refreshed, so the compiler options are read from the
 * commit's own {@code .settings} file and the libraries the state names are checked where they are — a configuration
 * that differs from the state's is the builder's to see (JDT builds a project in full when its classpath or its
 * {@code .settings} differ from those its state was built with).
 */
final class JavaCompatibility {

	private static final List<String> OPTIONS = List.of(JavaCore.COMPILER_COMPLIANCE, JavaCore.COMPILER_SOURCE,
			JavaCore.COMPILER_CODEGEN_TARGET_PLATFORM, JavaCore.COMPILER_RELEASE,
			JavaCore.COMPILER_PB_ENABLE_PREVIEW_FEATURES, JavaCore.COMPILER_LOCAL_VARIABLE_ATTR,
			JavaCore.COMPILER_LINE_NUMBER_ATTR, JavaCore.COMPILER_SOURCE_FILE_ATTR, JavaCore.COMPILER_CODEGEN_METHOD_PARAMETERS_ATTR);

	record Stamp(String path, long size, long modified) {
	}

	private static final Map<Stamp, String> HASHES = new ConcurrentHashMap<>();

	private JavaCompatibility() {
	}

	/**
	 * What a project is built against, without the libraries' content hashes (cheap: taken after every build).
	 *
	 * @param compiler  the JDT version and compiler options
	 * @param libraries the libraries outside the workspace with their size and time when taken; {@code null} when
	 *                  {@code compiler} is a whole description already told
	 */
	record Snapshot(String compiler, List<Stamp> libraries) {

		static Snapshot told(String description) {
			return new Snapshot(description, null);
		}
	}

	/** @return what the project is built against, as JDT's model describes it now */
	static String of(IProject project) throws CoreException {
		return describe(snapshot(project));
	}

	/** @return JDT's model's compiler options and libraries outside the workspace for the project */
	static Snapshot snapshot(IProject project) throws CoreException {
		IJavaProject javaProject = JavaCore.create(project);
		Map<String, Stamp> libraries = new TreeMap<>();
		IPath workspace = ResourcesPlugin.getWorkspace().getRoot().getLocation();
		for (IClasspathEntry entry : javaProject.getResolvedClasspath(true)) {
			if (entry.getEntryKind() != IClasspathEntry.CPE_LIBRARY
					|| ResourcesPlugin.getWorkspace().getRoot().findMember(entry.getPath()) != null
					|| workspace != null && workspace.isPrefixOf(entry.getPath())) {
				continue; // a library in the workspace comes with the sources or is built there
			}
			Path file = entry.getPath().toPath();
			libraries.put(file.toString(), stamp(file));
		}
		return new Snapshot(compiler(javaProject.getOptions(true)), List.copyOf(libraries.values()));
	}

	/**
	 * @return the snapshot's description, each library with the hash of its content; a library that changed since
	 *         the snapshot (size or time) is described as changed, which no library on disk matches
	 */
	static String describe(Snapshot snapshot) throws CoreException {
		if (snapshot.libraries() == null) {
			return snapshot.compiler();
		}
		StringBuilder b = new StringBuilder(snapshot.compiler());
		for (Stamp then : snapshot.libraries()) {
			Path file = Path.of(then.path());
			String hash;
			try {
				hash = then.equals(stamp(file)) ? library(file) : "changed-since-built"; //$NON-NLS-1$
			} catch (IOException e) {
				throw new CoreException(Status.warning("cannot read the library " + file + ": " + e.getMessage(), e)); //$NON-NLS-1$ //$NON-NLS-2$
			}
			b.append(LIBRARY).append(then.path()).append('@').append(hash);
		}
		return b.toString();
	}

	/** @return the file's path, size and time; size and time -1 when it cannot be read */
	private static Stamp stamp(Path file) {
		try {
			BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
			return new Stamp(file.toString(), attributes.size(), attributes.lastModifiedTime().toMillis());
		} catch (IOException e) {
			return new Stamp(file.toString(), -1, -1);
		}
	}

	private static final String LIBRARY = " lib="; //$NON-NLS-1$

	/**
	 * @param then what {@link #of} told when the state was saved
	 * @return whether the project is built against the same now: the same JDT, the same compiler options (the
	 *         project's from its {@code .settings} file on disk, over the workspace's), every library named still
	 *         there with the same content
	 */
	static boolean holds(IProject project, String then) {
		String[] parts = then.split(LIBRARY, -1);
		if (!parts[0].equals(compiler(optionsOnDisk(project)))) {
			return false;
		}
		for (int i = 1; i < parts.length; i++) {
			int at = parts[i].lastIndexOf('@');
			if (at <= 0) {
				return false;
			}
			try {
				if (!library(Path.of(parts[i].substring(0, at))).equals(parts[i].substring(at + 1))) {
					return false;
				}
			} catch (IOException | InvalidPathException e) {
				return false; // gone or unreadable: not what the state was built against
			}
		}
		return true;
	}

	/** @return the JDT version and the compiler options that change what it writes */
	private static String compiler(Map<String, String> options) {
		StringBuilder b = new StringBuilder("jdt=").append(JavaProjects.jdtVersion()); //$NON-NLS-1$
		for (String option : OPTIONS) {
			b.append(' ').append(option.substring(option.lastIndexOf('.') + 1)).append('=').append(options.get(option));
		}
		return b.toString();
	}

	/**
	 * @return the workspace's compiler options with the project's own over them, read from its
	 *         {@code .settings/org.eclipse.jdt.core.prefs} as it is on disk (as JDT's model does once it reads the
	 *         file again: values trimmed); the model's options when the project has no local folder or the file
	 *         cannot be read
	 */
	private static Map<String, String> optionsOnDisk(IProject project) {
		IJavaProject javaProject = JavaCore.create(project);
		IPath location = project.getLocation();
		if (location == null) {
			return javaProject.getOptions(true);
		}
		Map<String, String> options = JavaCore.getOptions();
		Path file = location.toPath().resolve(".settings").resolve(JavaCore.PLUGIN_ID + ".prefs"); //$NON-NLS-1$ //$NON-NLS-2$
		if (Files.isRegularFile(file)) {
			Properties own = new Properties();
			try (InputStream in = Files.newInputStream(file)) {
				own.load(in);
			} catch (IOException | IllegalArgumentException e) {
				return javaProject.getOptions(true);
			}
			for (String option : OPTIONS) {
				String value = own.getProperty(option);
				if (value != null) {
					options.put(option, value.trim());
				}
			}
		}
		return options;
	}

	/** @return a library's content hash; for a modular JDK's {@code lib/jrt-fs.jar}, with its {@code release} file's */
	private static String library(Path file) throws IOException {
		String hash = hash(file);
		if (file.getFileName() != null && file.getFileName().toString().equals("jrt-fs.jar") //$NON-NLS-1$
				&& file.getParent() != null && file.getParent().getParent() != null) {
			Path release = file.getParent().getParent().resolve("release"); //$NON-NLS-1$
			if (Files.isRegularFile(release)) {
				hash += '+' + hash(release);
			}
		}
		return hash;
	}

	/** @return the SHA-256 of a file's content (first 16 hex digits); a folder: "dir" */
	private static String hash(Path file) throws IOException {
		BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
		if (attributes.isDirectory()) {
			return "dir"; //$NON-NLS-1$
		}
		Stamp stamp = new Stamp(file.toString(), attributes.size(), attributes.lastModifiedTime().toMillis());
		String known = HASHES.get(stamp);
		if (known != null) {
			return known;
		}
		MessageDigest digest;
		try {
			digest = MessageDigest.getInstance("SHA-256"); //$NON-NLS-1$
		} catch (NoSuchAlgorithmException e) {
			throw new IllegalStateException(e);
		}
		try (InputStream in = Files.newInputStream(file)) {
			byte[] buffer = new byte[256 * 1024];
			int n;
			while ((n = in.read(buffer)) > 0) {
				digest.update(buffer, 0, n);
			}
		}
		String hash = HexFormat.of().formatHex(digest.digest(), 0, 8);
		HASHES.put(stamp, hash);
		return hash;
	}
}
