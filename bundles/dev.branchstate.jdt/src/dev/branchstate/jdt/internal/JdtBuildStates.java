package dev.branchstate.jdt.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.Status;
import org.eclipse.jdt.internal.core.JavaModelManager;
import org.eclipse.jdt.internal.core.builder.JavaBuilder;
import org.eclipse.osgi.util.NLS;

/**
 * The one class that reaches JDT's internal build state: the Java model manager's last built state of a project,
 * written and read with the Java builder's own (public static) methods — the form JDT itself keeps in
 * {@code state.dat}. Any linkage problem (another JDT release) becomes a {@link CoreException} naming the project,
 * so the contributor fails for that project and its builder is left as it was.
 */
final class JdtBuildStates {

	private JdtBuildStates() {
	}

	/**
	 * @return whether JDT has a last built state of the project (read from its saved state if not yet in memory);
	 *         {@code true} when JDT's internals cannot be reached here (a save then says so itself)
	 */
	static boolean hasState(IProject project) {
		try {
			return JavaModelManager.getJavaModelManager().getLastBuiltState(project, null) != null;
		} catch (LinkageError | RuntimeException e) {
			return true;
		}
	}

	/** @return JDT's last built state of the project as bytes, or {@code null} when it has none */
	static byte[] write(IProject project, IProgressMonitor monitor) throws CoreException {
		try {
			Object state = JavaModelManager.getJavaModelManager().getLastBuiltState(project, monitor);
			if (state == null) {
				return null;
			}
			ByteArrayOutputStream bytes = new ByteArrayOutputStream();
			try (DataOutputStream out = new DataOutputStream(bytes)) {
				JavaBuilder.writeState(state, out);
			}
			return bytes.toByteArray();
		} catch (IOException | LinkageError | RuntimeException e) {
			throw unavailable(project, e);
		}
	}

	/**
	 * @return the state the bytes hold, or {@code null} when JDT does not accept it (another state version, another
	 *         project name)
	 */
	static Object read(IProject project, byte[] bytes) throws CoreException {
		try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
			return JavaBuilder.readState(project, in);
		} catch (IOException | LinkageError | RuntimeException e) {
			throw unavailable(project, e);
		}
	}

	/** Makes {@code state} JDT's last built state of the project (what its next build starts from). */
	static void install(IProject project, Object state) throws CoreException {
		try {
			JavaModelManager.getJavaModelManager().setLastBuiltState(project, state);
		} catch (LinkageError | RuntimeException e) {
			throw unavailable(project, e);
		}
	}

	private static CoreException unavailable(IProject project, Throwable e) {
		return new CoreException(Status.error(NLS.bind(Messages.JdtState_unavailable, project.getName(),
				String.valueOf(e.getMessage())), e));
	}
}
