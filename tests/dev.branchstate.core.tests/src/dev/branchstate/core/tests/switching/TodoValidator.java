package dev.branchstate.core.tests.switching;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IResourceDelta;
import org.eclipse.core.resources.IncrementalProjectBuilder;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.Status;

/**
 * A builder shaped like PDE's manifest builder: no state of its own, no file written, its whole output persistent
 * problem markers. It validates the {@code src/**.java} files its delta names (every one on a full build or with no
 * delta): one marker per line that holds {@code TODO}. Declared a marker builder in this bundle's plugin.xml, so a
 * restore hands it the restored commit with JDT's builder. Records the files it validated.
 */
public final class TodoValidator extends IncrementalProjectBuilder {

	public static final String ID = "dev.branchstate.core.tests.todoValidator";
	public static final String MARKER = "dev.branchstate.core.tests.todo";

	private static final List<String> VALIDATED = new ArrayList<>();

	/** @return the project-relative paths validated since the last call, in order */
	public static List<String> takeValidated() {
		synchronized (VALIDATED) {
			List<String> taken = List.copyOf(VALIDATED);
			VALIDATED.clear();
			return taken;
		}
	}

	@Override
	protected IProject[] build(int kind, Map<String, String> args, IProgressMonitor monitor) throws CoreException {
		IProject project = getProject();
		IResourceDelta delta = kind == FULL_BUILD ? null : getDelta(project);
		if (delta == null) {
			project.accept(resource -> {
				if (isSource(resource)) {
					validate((IFile) resource);
				}
				return true;
			});
		} else {
			delta.accept(child -> {
				if (isSource(child.getResource()) && child.getKind() != IResourceDelta.REMOVED) {
					validate((IFile) child.getResource());
				}
				return true;
			});
		}
		return null;
	}

	@Override
	protected void clean(IProgressMonitor monitor) throws CoreException {
		getProject().deleteMarkers(MARKER, false, IResource.DEPTH_INFINITE);
	}

	private static boolean isSource(IResource resource) {
		return resource.getType() == IResource.FILE && resource.getName().endsWith(".java")
				&& resource.getProjectRelativePath().segmentCount() > 1
				&& resource.getProjectRelativePath().segment(0).equals("src");
	}

	private static void validate(IFile file) throws CoreException {
		synchronized (VALIDATED) {
			VALIDATED.add(file.getProjectRelativePath().toPortableString());
		}
		file.deleteMarkers(MARKER, false, IResource.DEPTH_ZERO);
		String content;
		try (InputStream in = file.getContents(true)) {
			content = new String(in.readAllBytes(), StandardCharsets.UTF_8);
		} catch (IOException e) {
			throw new CoreException(Status.error("cannot read " + file, e));
		}
		expected(content).forEach((line, text) -> {
			try {
				file.createMarker(MARKER, Map.of(IMarker.LINE_NUMBER, line, IMarker.MESSAGE, text,
						IMarker.SEVERITY, IMarker.SEVERITY_INFO));
			} catch (CoreException e) {
				throw new IllegalStateException(e);
			}
		});
	}

	/** @return line number → message of the markers a validation of this content makes */
	static Map<Integer, String> expected(String content) {
		Map<Integer, String> markers = new TreeMap<>();
		String[] lines = content.split("\n", -1);
		for (int i = 0; i < lines.length; i++) {
			int at = lines[i].indexOf("TODO");
			if (at >= 0) {
				markers.put(i + 1, lines[i].substring(at).trim());
			}
		}
		return markers;
	}
}
