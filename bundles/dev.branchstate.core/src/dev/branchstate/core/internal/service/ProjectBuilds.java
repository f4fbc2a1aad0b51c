package dev.branchstate.core.internal.service;

import java.util.List;
import java.util.Optional;

import org.eclipse.core.resources.IBuildConfiguration;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.IncrementalProjectBuilder;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.jobs.Job;

import dev.branchstate.core.internal.build.BuildManagerAccess;
import dev.branchstate.core.internal.contributors.ContributorRegistry;

/**
 * Whether a project's build is complete, the one question the save, the restore's hand-off completion and the
 * headless build ask; and the wait for that build.
 */
final class ProjectBuilds {

	private final IWorkspace workspace;
	private final ContributorRegistry contributors;

	ProjectBuilds(IWorkspace workspace, ContributorRegistry contributors) {
		this.workspace = workspace;
		this.contributors = contributors;
	}

	/**
	 * @return why the project's derived data may not be its complete build: a builder that has not built the current
	 *         tree, or a contributor that counts the build as incomplete; empty when it is complete
	 */
	Optional<String> whyNotBuilt(IProject project) {
		return BuildManagerAccess.whyNotBuilt(project).or(() -> contributors.whyNotBuilt(project));
	}

	/**
	 * Builds the projects now, as the auto-build when it is on (a manual build would make the platform skip the
	 * auto-build after the next change), and returns once that build ended.
	 */
	void await(List<IProject> projects, IProgressMonitor monitor) throws CoreException {
		if (projects.isEmpty()) {
			return;
		}
		if (!workspace.isAutoBuilding()) {
			IBuildConfiguration[] configs = new IBuildConfiguration[projects.size()];
			for (int i = 0; i < configs.length; i++) {
				configs[i] = projects.get(i).getActiveBuildConfig();
			}
			workspace.build(configs, IncrementalProjectBuilder.INCREMENTAL_BUILD, true, monitor);
			return;
		}
		// projects never built since Eclipse started (an import, say), or whose builder wants to build them in full
		// (JDT after a build that failed), get a change that starts the auto-build
		if (Job.getJobManager().find(ResourcesPlugin.FAMILY_AUTO_BUILD).length == 0) {
			for (IProject project : projects) {
				if (whyNotBuilt(project).isPresent()) {
					project.touch(null); // in the workspace tree only: no file is written
				}
			}
		}
		for (Job job : Job.getJobManager().find(ResourcesPlugin.FAMILY_AUTO_BUILD)) {
			job.wakeUp();
		}
		try {
			Job.getJobManager().join(ResourcesPlugin.FAMILY_AUTO_BUILD, monitor);
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			throw new OperationCanceledException();
		}
	}
}
