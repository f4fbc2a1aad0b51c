package dev.branchstate.core.tests.switching;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import org.eclipse.core.resources.IContainer;
import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IFolder;
import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IResourceDelta;
import org.eclipse.core.resources.IncrementalProjectBuilder;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.Status;

/**
 * "Compiles" every {@code src/**.txt} of a project into {@code bin/<same path>.out} (a derived folder): the output
 * starts with the SHA-1 of the source and a random build id, then the source upper-cased. A source whose output
 * already carries its SHA-1 is up to date and not compiled again (the way make-like and content-hashing builders
 * work), so restored derived data really saves work. Every line of a source containing {@code ERROR} gets a
 * persistent problem marker. Records each source it compiled or whose output it removed.
 */
public final class RecordingBuilder extends IncrementalProjectBuilder {

	public static final String ID = "dev.branchstate.core.tests.recordingBuilder";
	public static final String MARKER = "dev.branchstate.core.tests.problem";

	private static final Map<String, List<String>> RECORD = new ConcurrentHashMap<>();

	/**
	 * When set, every build also validates every source again as PDE's manifest checker does: it removes the source's
	 * markers and adds them again, with this value as an attribute {@code "validation"} (the empty string: the same
	 * markers as a compile makes; another value: markers that differ). {@code null}: no validation (the default).
	 */
	public static volatile String validation;

	/**
	 * With {@link #validation}: the validation changes the source's markers in place (sets the attribute on each
	 * existing marker, the ids stay) instead of removing them and adding them again.
	 */
	public static volatile boolean validatesInPlace;

	/** @return what the builder did in the project since the last {@link #reset}: "compile src/a.txt", "remove …" */
	public static List<String> record(IProject project) {
		synchronized (RECORD) {
			return List.copyOf(RECORD.getOrDefault(project.getName(), List.of()));
		}
	}

	public static void reset(IProject project) {
		synchronized (RECORD) {
			RECORD.remove(project.getName());
		}
	}

	private static void note(IProject project, String what) {
		synchronized (RECORD) {
			RECORD.computeIfAbsent(project.getName(), k -> new ArrayList<>()).add(what);
		}
	}

	@Override
	protected IProject[] build(int kind, Map<String, String> args, IProgressMonitor monitor) throws CoreException {
		IProject project = getProject();
		IResourceDelta delta = kind == FULL_BUILD ? null : getDelta(project);
		IFolder src = project.getFolder("src");
		if (delta == null) {
			if (src.exists()) {
				src.accept(resource -> {
					if (isSource(resource)) {
						compile((IFile) resource);
					}
					return true;
				});
			}
			return null;
		}
		if (validation != null && src.exists()) {
			src.accept(resource -> {
				if (isSource(resource)) {
					IFile source = (IFile) resource;
					if (validatesInPlace) {
						revalidate(source, validation);
					} else {
						mark(source, read(source));
					}
				}
				return true;
			});
		}
		IResourceDelta srcDelta = delta.findMember(IPath.fromOSString("src"));
		if (srcDelta != null) {
			srcDelta.accept(child -> {
				IResource resource = child.getResource();
				if (isSource(resource)) {
					if (child.getKind() == IResourceDelta.REMOVED) {
						remove((IFile) resource);
					} else {
						compile((IFile) resource);
					}
				}
				return true;
			});
		}
		return null;
	}

	@Override
	protected void clean(IProgressMonitor monitor) throws CoreException {
		IFolder bin = getProject().getFolder("bin");
		if (bin.exists()) {
			for (IResource member : bin.members()) {
				member.delete(true, monitor);
			}
		}
		getProject().deleteMarkers(MARKER, true, IResource.DEPTH_INFINITE);
	}

	private static boolean isSource(IResource resource) {
		return resource.getType() == IResource.FILE && "txt".equals(resource.getFileExtension())
				&& resource.getProjectRelativePath().segment(0).equals("src");
	}

	private static IFile outputOf(IFile source) {
		IPath relative = source.getProjectRelativePath().removeFirstSegments(1);
		return source.getProject().getFolder("bin").getFile(relative.addFileExtension("out"));
	}

	private void compile(IFile source) throws CoreException {
		byte[] content = read(source);
		String header = "source-sha1: " + sha1(content);
		IFile output = outputOf(source);
		if (output.exists() && header.equals(firstLine(output))) {
			return; // up to date
		}
		note(source.getProject(), "compile " + source.getProjectRelativePath());
		String text = new String(content, StandardCharsets.UTF_8);
		byte[] out = (header + "\nbuild: " + UUID.randomUUID() + "\n" + text.toUpperCase())
				.getBytes(StandardCharsets.UTF_8);
		createFolders(output.getParent());
		if (output.exists()) {
			output.setContents(new ByteArrayInputStream(out), IResource.FORCE, null);
		} else {
			output.create(new ByteArrayInputStream(out), IResource.FORCE | IResource.DERIVED, null);
		}
		mark(source, content);
	}

	private static byte[] read(IFile source) throws CoreException {
		try (InputStream in = source.getContents(true)) {
			return in.readAllBytes();
		} catch (IOException e) {
			throw new CoreException(Status.error(e.getMessage(), e));
		}
	}

	/** Removes the source's markers and adds one per line containing {@code ERROR}. */
	private static void mark(IFile source, byte[] content) throws CoreException {
		source.deleteMarkers(MARKER, false, IResource.DEPTH_ZERO);
		String[] lines = new String(content, StandardCharsets.UTF_8).split("\n", -1);
		String validated = validation;
		for (int i = 0; i < lines.length; i++) {
			if (lines[i].contains("ERROR")) {
				Map<String, Object> attributes = new HashMap<>(Map.of(IMarker.MESSAGE, "error: " + lines[i].strip(),
						IMarker.LINE_NUMBER, Integer.valueOf(i + 1), IMarker.SEVERITY,
						Integer.valueOf(IMarker.SEVERITY_ERROR), "sourceSha1", sha1(content)));
				if (validated != null && !validated.isEmpty()) {
					attributes.put("validation", validated);
				}
				source.createMarker(MARKER, attributes);
			}
		}
	}

	/** Sets the attribute {@code "validation"} on each of the source's markers, in place (the empty string: none). */
	private static void revalidate(IFile source, String validated) throws CoreException {
		for (IMarker marker : source.findMarkers(MARKER, false, IResource.DEPTH_ZERO)) {
			marker.setAttribute("validation", validated.isEmpty() ? null : validated);
		}
	}

	private void remove(IFile source) throws CoreException {
		IFile output = outputOf(source);
		if (output.exists()) {
			note(source.getProject(), "remove " + source.getProjectRelativePath());
			output.delete(true, null);
		}
	}

	private static void createFolders(IContainer container) throws CoreException {
		if (container instanceof IFolder folder && !folder.exists()) {
			createFolders(folder.getParent());
			folder.create(IResource.FORCE | IResource.DERIVED, true, null);
		}
	}

	private static String firstLine(IFile file) throws CoreException {
		try (InputStream in = file.getContents(true)) {
			String text = new String(in.readNBytes(64), StandardCharsets.UTF_8);
			int eol = text.indexOf('\n');
			return eol < 0 ? text : text.substring(0, eol);
		} catch (IOException e) {
			throw new CoreException(Status.error(e.getMessage(), e));
		}
	}

	static String sha1(byte[] content) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(content));
		} catch (NoSuchAlgorithmException e) {
			throw new IllegalStateException(e);
		}
	}
}
