package dev.branchstate.jdt.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.Status;
import org.eclipse.jdt.core.IClasspathEntry;
import org.eclipse.jdt.core.IJavaProject;
import org.eclipse.jdt.core.JavaCore;
import org.eclipse.osgi.util.NLS;

import dev.branchstate.core.IRestoreContext;
import dev.branchstate.core.ISaveContext;
import dev.branchstate.core.IStateContributor;

/**
 * Contributes JDT's Java builder state of each Java project: the builder's last built state (what it compiled, the
 * types and references it knows), in the form JDT writes itself, with the JDT version that wrote it, and names the
 * project's output folders from its classpath, which the built-in derived-resources contributor saves and restores.
 * Restored only together with those folders, so the state service then hands the Java builder the restored commit:
 * it compiles only the sources that differ from it.
 * <p>
 * A state of another JDT version, or one JDT does not accept, is not restored: the restore of that project says so
 * once in the Error Log and the builder goes on from its own state, building what the checkout changed.
 */
public final class JdtBuildStateContributor implements IStateContributor {

	static final String STATE = "state"; //$NON-NLS-1$
	static final String JDT_VERSION = "jdt-version"; //$NON-NLS-1$

	@Override
	public int version() {
		return 1;
	}

	@Override
	public Set<String> builderStates() {
		return Set.of(JavaCore.BUILDER_ID);
	}

	/**
	 * The project's output folders from its classpath: the default output location and every source folder's own,
	 * those inside the project only (an output folder that is the project itself holds sources: never saved).
	 */
	@Override
	public Set<IPath> derivedFolders(IProject project) throws CoreException {
		IJavaProject javaProject = JavaCore.create(project);
		Set<IPath> outputs = new LinkedHashSet<>();
		outputs.add(javaProject.getOutputLocation());
		for (IClasspathEntry entry : javaProject.getRawClasspath()) {
			if (entry.getEntryKind() == IClasspathEntry.CPE_SOURCE && entry.getOutputLocation() != null) {
				outputs.add(entry.getOutputLocation());
			}
		}
		Set<IPath> result = new LinkedHashSet<>();
		for (IPath output : outputs) {
			if (output.segmentCount() > 1 && output.segment(0).equals(project.getName())) {
				result.add(output.removeFirstSegments(1));
			}
		}
		return result;
	}

	/**
	 * JDT clears its build state when a build fails (a broken build path, a compiler that threw) and builds in full
	 * next time, while the build manager counts the failed build as done: the output is what the failed build left.
	 * A Java project whose build spec does not run the Java builder has no such state, and is not held back.
	 */
	@Override
	public Optional<String> whyNotBuilt(IProject project) {
		return !JavaProjects.isBuiltByJdt(project) || JdtBuildStates.hasState(project) ? Optional.empty()
				: Optional.of(NLS.bind(Messages.JdtState_notBuilt, project.getName()));
	}

	/**
	 * The JDT version, compiler options and libraries outside the workspace that the project's output was last built
	 * against: see {@link JavaCompatibility} and {@link LastBuiltAgainst}.
	 */
	@Override
	public String compatibility(IProject project) throws CoreException {
		return LastBuiltAgainst.of(project);
	}

	/**
	 * The JDT version, compiler options on disk, the libraries the state names: see {@link JavaCompatibility#holds}.
	 * When they hold, the state is restored: the project's output is then built against what the state names.
	 */
	@Override
	public boolean isBuiltAgainst(IProject project, String then) {
		boolean holds = JavaCompatibility.holds(project, then);
		if (holds) {
			LastBuiltAgainst.restored(project, then);
		}
		return holds;
	}

	@Override
	public boolean appliesTo(IProject project) {
		return JavaProjects.isJavaProject(project);
	}

	@Override
	public void save(ISaveContext context, IProgressMonitor monitor) throws CoreException {
		IProject project = context.project();
		byte[] state = JdtBuildStates.write(project, monitor);
		if (state == null) {
			throw new CoreException(Status.info(NLS.bind(Messages.JdtState_none, project.getName())));
		}
		try {
			context.addBytes(STATE, state);
			context.addBytes(JDT_VERSION, JavaProjects.jdtVersion().getBytes(StandardCharsets.UTF_8));
		} catch (IOException e) {
			throw new CoreException(Status.error(e.getMessage(), e));
		}
	}

	/**
	 * What a restore reads of the state: the JDT version that wrote it and, when it is this one, the state JDT read
	 * from it ({@code null}: JDT did not accept it).
	 */
	private record Read(String version, Object state) {
	}

	/** Reads the state and has JDT decode it, off the workspace operation's thread. */
	@Override
	public Object prepare(IRestoreContext context, IProgressMonitor monitor) throws CoreException {
		return read(context);
	}

	@Override
	public void restore(IRestoreContext context, IProgressMonitor monitor) throws CoreException {
		IProject project = context.project();
		Read read = context.prepared() instanceof Read prepared ? prepared : read(context);
		if (!read.version().equals(JavaProjects.jdtVersion())) {
			throw new CoreException(Status.warning(NLS.bind(Messages.JdtState_otherVersion,
					new Object[] { project.getName(), read.version(), JavaProjects.jdtVersion() })));
		}
		if (read.state() == null) {
			throw new CoreException(Status.warning(NLS.bind(Messages.JdtState_unreadable, project.getName())));
		}
		JdtBuildStates.install(project, read.state());
	}

	private static Read read(IRestoreContext context) throws CoreException {
		IProject project = context.project();
		try {
			String written = new String(readAll(context, JDT_VERSION), StandardCharsets.UTF_8);
			if (!written.equals(JavaProjects.jdtVersion())) {
				return new Read(written, null);
			}
			return new Read(written, JdtBuildStates.read(project, readAll(context, STATE)));
		} catch (IOException e) {
			throw new CoreException(Status.error(NLS.bind(Messages.JdtState_unreadable, project.getName()), e));
		}
	}

	private static byte[] readAll(IRestoreContext context, String name) throws IOException {
		try (InputStream in = context.open(name)) {
			return in.readAllBytes();
		}
	}

}
