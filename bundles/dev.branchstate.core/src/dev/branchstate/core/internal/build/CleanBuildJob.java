package dev.branchstate.core.internal.build;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IncrementalProjectBuilder;
import org.eclipse.core.resources.WorkspaceJob;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.osgi.util.NLS;

import dev.branchstate.core.internal.Messages;

/**
 * A clean build of one project, as Project › Clean… does it: the fallback that makes a project's builders rebuild
 * derived data they can no longer trust when {@link BuildManagerAccess} cannot reset them. The build's own rules
 * apply, so it runs once the caller's rule is released.
 */
public final class CleanBuildJob extends WorkspaceJob {

	private final IProject project;

	private CleanBuildJob(IProject project) {
		super(NLS.bind(Messages.Build_cleanJobName, project.getName()));
		this.project = project;
		setRule(project.getWorkspace().getRuleFactory().buildRule());
	}

	/** Schedules a clean build of the project (an auto-build, or the user's next build, then builds it in full). */
	public static void schedule(IProject project) {
		new CleanBuildJob(project).schedule();
	}

	@Override
	public IStatus runInWorkspace(IProgressMonitor monitor) throws CoreException {
		if (project.isAccessible()) {
			project.build(IncrementalProjectBuilder.CLEAN_BUILD, monitor);
		}
		return Status.OK_STATUS;
	}
}
