package dev.branchstate.jdt.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResourceChangeEvent;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.ILog;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.jdt.core.IJavaProject;
import org.eclipse.jdt.core.JavaCore;
import org.eclipse.jdt.internal.core.JavaModelManager;
import org.eclipse.jdt.internal.core.search.processing.IJob;
import org.eclipse.osgi.util.NLS;

import dev.branchstate.core.IRestoreContext;
import dev.branchstate.core.ISaveContext;
import dev.branchstate.core.IStateContributor;

/**
 * Contributes JDT's search index of each Java project's sources (the one index file JDT keeps per project), with the
 * JDT version that wrote it. After a restore JDT indexes only the files of the project's source folders that differ
 * from the restored commit, instead of every file the checkout changed.
 * <p>
 * Not restored, and JDT indexes the checkout's change as it would without Branchstate: a state of another JDT
 * version, and a restore where the project's classpath or JDT settings differ from the state's (the set of files
 * the index covers, or how JDT parses them, may differ). A restore that fails once it has touched JDT's index has
 * JDT rebuild the project's index from scratch and throws: a stale index is never left behind.
 */
public final class JdtIndexContributor implements IStateContributor {

	static final String INDEX = "index"; //$NON-NLS-1$

	/** The projects of the switches announced and not ended yet. */
	private final Set<IProject> switching = ConcurrentHashMap.newKeySet();

	/** The projects whose index a pending switch restored. */
	private final Map<IProject, RestoredIndex> restoredInSwitch = new ConcurrentHashMap<>();

	/**
	 * A project's index restored by a pending switch: the index jobs its restore queued, and whether the workspace
	 * has since told its listeners (JDT's among them) of one change (the restore's own) and no other.
	 */
	private static final class RestoredIndex {
		final Set<IJob> queued;
		volatile boolean changedOnce;

		RestoredIndex(Set<IJob> queued) {
			this.queued = queued;
		}
	}

	public JdtIndexContributor() {
		JdtIndexesAtShutdown.register(); // so that the next session's states hold the indexes this one changed
		ResourcesPlugin.getWorkspace().addResourceChangeListener(this::changed, IResourceChangeEvent.POST_CHANGE);
	}

	/**
	 * The first change after a restore of the index is the restore's own (its workspace operation holds the workspace
	 * until it ends); any later one may be the user's, or a checkout's, which JDT must index.
	 */
	private void changed(IResourceChangeEvent event) {
		restoredInSwitch.values().removeIf(restored -> {
			boolean later = restored.changedOnce;
			restored.changedOnce = true;
			return later;
		});
	}

	@Override
	public int version() {
		return 1;
	}

	/** JDT's index format is its version's. */
	@Override
	public String compatibility(IProject project) {
		return "jdt=" + JavaProjects.jdtVersion(); //$NON-NLS-1$
	}

	@Override
	public boolean appliesTo(IProject project) {
		return JavaProjects.isJavaProject(project);
	}

	@Override
	public void save(ISaveContext context, IProgressMonitor monitor) throws CoreException {
		IProject project = context.project();
		byte[] index = JdtIndexes.write(project);
		if (index == null) {
			throw new CoreException(Status.info(NLS.bind(Messages.JdtIndex_none, project.getName())));
		}
		try {
			context.addBytes(INDEX, index);
			context.addBytes(JdtBuildStateContributor.JDT_VERSION,
					JavaProjects.jdtVersion().getBytes(StandardCharsets.UTF_8));
		} catch (IOException e) {
			throw new CoreException(Status.error(e.getMessage(), e));
		}
	}

	/**
	 * A state of another JDT version, or one whose project configuration differs from the working tree's, is not
	 * restored and the restore returns normally: nothing of JDT's index was touched, so JDT indexes the checkout's
	 * change as it would without Branchstate. Said in the Error Log, and not as a failure, which would have the
	 * project's builders build it in full although its build state and output were restored.
	 */
	@Override
	public void restore(IRestoreContext context, IProgressMonitor monitor) throws CoreException {
		IProject project = context.project();
		Read read = context.prepared() instanceof Read prepared ? prepared : read(context);
		if (read.index() == null) {
			ILog.of(JdtIndexContributor.class).info(NLS.bind(Messages.JdtIndex_otherVersion,
					new Object[] { project.getName(), read.version(), JavaProjects.jdtVersion() }));
			return;
		}
		byte[] index = read.index();
		IJavaProject javaProject = JavaCore.create(project);
		List<IFile> toIndex = new ArrayList<>();
		List<IFile> toRemove = new ArrayList<>();
		for (IPath path : context.changedPaths()) {
			if (configuresJdt(path)) {
				ILog.of(JdtIndexContributor.class).info(NLS.bind(Messages.JdtIndex_configurationChanged,
						project.getName(), path.toPortableString()));
				return;
			}
			IFile file = project.getFile(path);
			if (!JavaCore.isJavaLikeFileName(file.getName()) || !javaProject.isOnClasspath(file)) {
				continue; // not in the project's source index
			}
			(file.getLocation() != null && file.getLocation().toFile().isFile() ? toIndex : toRemove).add(file);
		}
		Set<IJob> queued = JdtIndexes.install(project, index, toIndex, toRemove);
		if (switching.contains(project)) {
			restoredInSwitch.put(project, new RestoredIndex(queued));
		}
	}

	/** What a restore reads of the state: the JDT version that wrote it, the index when it is this version's. */
	private record Read(String version, byte[] index) {
	}

	/** Reads the index out of the state (its decompression), off the workspace operation's thread. */
	@Override
	public Object prepare(IRestoreContext context, IProgressMonitor monitor) throws CoreException {
		return read(context);
	}

	private static Read read(IRestoreContext context) throws CoreException {
		try {
			String written = new String(readAll(context, JdtBuildStateContributor.JDT_VERSION), StandardCharsets.UTF_8);
			return new Read(written, written.equals(JavaProjects.jdtVersion()) ? readAll(context, INDEX) : null);
		} catch (IOException e) {
			throw new CoreException(
					Status.error(NLS.bind(Messages.JdtIndex_unreadable, context.project().getName()), e));
		}
	}

	/**
	 * Holds JDT's indexer while a switch is handled: the refresh of the checkout queues the indexing of every file it
	 * changed, which a restore of the index replaces by the files that differ from the restored commit (and which
	 * JDT indexes as usual when nothing is restored).
	 */
	@Override
	public void switchStarting(List<IProject> projects) {
		switching.addAll(projects);
		JavaModelManager.getIndexManager().disable();
	}

	/**
	 * Before JDT's indexer runs again: for each project whose index the switch restored, and which nothing changed
	 * after the restore, only the jobs the restore queued are left, not JDT's answer to the restore's own changes (see
	 * {@link JdtIndexes#discardSourceJobsBut}). Where the restore ran within a build (a switch noticed as a build
	 * starts), the workspace tells its change after the build, and JDT's jobs run as queued.
	 */
	@Override
	public void switchEnded(List<IProject> projects) {
		try {
			for (IProject project : projects) {
				RestoredIndex restored = restoredInSwitch.remove(project);
				if (restored != null && restored.changedOnce) {
					JdtIndexes.discardSourceJobsBut(project, restored.queued);
				}
			}
		} finally {
			switching.removeAll(projects);
			JavaModelManager.getIndexManager().enable();
		}
	}

	/**
	 * JDT's start-up job that hands it the resource changes since it last ran ("Processing Java changes since last
	 * activation", scheduled when JDT starts; starting JDT here if it is not running yet): run after the switch, it
	 * would hand JDT's indexer the checkout's change a second time, after the restore discarded the first, and JDT
	 * would index again every file the checkout changed.
	 */
	@Override
	public List<Job> jobsBeforeSwitch(List<IProject> projects) {
		JavaModelManager.getJavaModelManager(); // JDT starts, if it was not running
		String name = org.eclipse.jdt.internal.core.util.Messages.savedState_jobName;
		return Arrays.stream(Job.getJobManager().find(null)).filter(job -> name.equals(job.getName())).toList();
	}

	/** @return whether a change of the file may change which files JDT indexes, or how: the classpath, settings */
	private static boolean configuresJdt(IPath path) {
		return path.segmentCount() >= 1 && (path.segment(0).equals(".classpath") //$NON-NLS-1$
				|| path.segment(0).equals(".settings") || path.segment(0).equals(".project")); //$NON-NLS-1$ //$NON-NLS-2$
	}

	private static byte[] readAll(IRestoreContext context, String name) throws IOException {
		try (InputStream in = context.open(name)) {
			return in.readAllBytes();
		}
	}
}
