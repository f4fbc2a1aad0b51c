package dev.branchstate.ui.tests;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IFolder;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IncrementalProjectBuilder;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;

/**
 * A builder standing in for a compiler: every {@code src/X.java} gives {@code bin/X.class} (derived), and class files
 * without a source are removed. Enough for the switch protocol to see builds make and change derived data.
 */
public final class FakeCompiler extends IncrementalProjectBuilder {

	public static final String ID = "dev.branchstate.ui.tests.fakeCompiler";

	@Override
	protected IProject[] build(int kind, Map<String, String> args, IProgressMonitor monitor) throws CoreException {
		IProject project = getProject();
		IFolder src = project.getFolder("src");
		IFolder bin = project.getFolder("bin");
		if (!bin.exists()) {
			bin.create(IResource.FORCE | IResource.DERIVED, true, monitor);
		}
		if (src.exists()) {
			for (IResource source : src.members()) {
				if (source instanceof IFile file && "java".equals(file.getFileExtension())) {
					String name = file.getName().replace(".java", ".class");
					byte[] compiled = ("compiled " + file.getName()).getBytes(StandardCharsets.UTF_8);
					IFile output = bin.getFile(name);
					if (!output.exists()) {
						output.create(new ByteArrayInputStream(compiled), IResource.FORCE | IResource.DERIVED, monitor);
					}
				}
			}
		}
		for (IResource output : bin.members()) {
			String source = output.getName().replace(".class", ".java");
			if (!src.getFile(source).exists()) {
				output.delete(true, monitor);
			}
		}
		return null;
	}
}
