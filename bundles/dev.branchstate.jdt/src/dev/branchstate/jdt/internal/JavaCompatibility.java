package dev.branchstate.jdt.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
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
 */
final class JavaCompatibility {

	private static final List<String> OPTIONS = List.of(JavaCore.COMPILER_COMPLIANCE, JavaCore.COMPILER_SOURCE,
			JavaCore.COMPILER_CODEGEN_TARGET_PLATFORM, JavaCore.COMPILER_RELEASE,
			JavaCore.COMPILER_PB_ENABLE_PREVIEW_FEATURES, JavaCore.COMPILER_LOCAL_VARIABLE_ATTR,
			JavaCore.COMPILER_LINE_NUMBER_ATTR, JavaCore.COMPILER_SOURCE_FILE_ATTR, JavaCore.COMPILER_CODEGEN_METHOD_PARAMETERS_ATTR);

	private record Stamp(String path, long size, long modified) {
	}

	private static final Map<Stamp, String> HASHES = new ConcurrentHashMap<>();

	private JavaCompatibility() {
	}

	static String of(IProject project) throws CoreException {
		IJavaProject javaProject = JavaCore.create(project);
		StringBuilder b = new StringBuilder("jdt=").append(JavaProjects.jdtVersion()); //$NON-NLS-1$
		Map<String, String> options = javaProject.getOptions(true);
		for (String option : OPTIONS) {
			b.append(' ').append(option.substring(option.lastIndexOf('.') + 1)).append('=').append(options.get(option));
		}
		Map<String, String> libraries = new TreeMap<>();
		IPath workspace = ResourcesPlugin.getWorkspace().getRoot().getLocation();
		for (IClasspathEntry entry : javaProject.getResolvedClasspath(true)) {
			if (entry.getEntryKind() != IClasspathEntry.CPE_LIBRARY
					|| ResourcesPlugin.getWorkspace().getRoot().findMember(entry.getPath()) != null
					|| workspace != null && workspace.isPrefixOf(entry.getPath())) {
				continue; // a library in the workspace comes with the sources or is built there
			}
			Path file = entry.getPath().toPath();
			try {
				String hash = hash(file);
				if (file.getFileName() != null && file.getFileName().toString().equals("jrt-fs.jar") //$NON-NLS-1$
						&& file.getParent() != null && file.getParent().getParent() != null) {
					Path release = file.getParent().getParent().resolve("release"); //$NON-NLS-1$
					if (Files.isRegularFile(release)) {
						hash += '+' + hash(release);
					}
				}
				libraries.put(file.toString(), hash);
			} catch (IOException e) {
				throw new CoreException(Status.warning(project.getName() + ": cannot read the library " + file //$NON-NLS-1$
						+ ": " + e.getMessage(), e)); //$NON-NLS-1$
			}
		}
		libraries.forEach((path, hash) -> b.append(" lib=").append(path).append('@').append(hash)); //$NON-NLS-1$
		return b.toString();
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
