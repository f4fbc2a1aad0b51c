package dev.branchstate.core.internal.service;

import java.io.IOException;
import java.util.List;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResourceChangeEvent;
import org.eclipse.core.resources.IResourceChangeListener;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.jobs.ISchedulingRule;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.core.runtime.jobs.MultiRule;
import org.eclipse.osgi.util.NLS;

import dev.branchstate.core.internal.LockOrder;
import dev.branchstate.core.internal.Log;
import dev.branchstate.core.internal.Messages;
import dev.branchstate.core.internal.contributors.ContributorRegistry;

/**
 * Undoes what restores that did not end left (the IDE killed or crashed while one was writing, see
 * {@link RestoreJournal}): removes the derived data of their projects and has their builders build them in full, then
 * deletes their records. Runs in a job at start-up and, should a build come first, before it (PRE_BUILD); a save of
 * such a project is refused until then. Costs nothing when no restore is on record.
 */
final class InterruptedRestores implements IResourceChangeListener {

	private final IWorkspace workspace;
	private final RestoreJournal journal;
	private final ContributorRegistry contributors;

	InterruptedRestores(IWorkspace workspace, RestoreJournal journal, ContributorRegistry contributors) {
		this.workspace = workspace;
		this.journal = journal;
		this.contributors = contributors;
	}

	/** Recovers before any build, and now in a job when a restore is on record. */
	void install() {
		workspace.addResourceChangeListener(this, IResourceChangeEvent.PRE_BUILD);
		if (journal.pending()) {
			Job recovery = Job.createSystem(Messages.Service_recoveryJob, this::recover);
			recovery.setRule(LockOrder.workspaceRule(workspace));
			recovery.schedule();
		}
	}

	void uninstall() {
		workspace.removeResourceChangeListener(this);
	}

	/** A build that starts before the recovery job ran recovers first. */
	@Override
	public void resourceChanged(IResourceChangeEvent event) {
		recover(null);
	}

	void recover(IProgressMonitor monitor) {
		if (!journal.pending()) {
			return;
		}
		int mark = journal.mark();
		List<RestoreJournal.Unfinished> unfinished;
		try {
			unfinished = journal.unfinished();
		} catch (IOException e) {
			Log.warning(NLS.bind(Messages.Service_restoreNotRecovered, "?", e.getMessage()), e); //$NON-NLS-1$
			return;
		}
		boolean all = true;
		for (RestoreJournal.Unfinished u : unfinished) {
			all &= undo(u, monitor);
		}
		if (all) {
			journal.allRecovered(mark);
		}
	}

	/** @return whether the restore's projects were recovered; if not, its record stays for the next session */
	private boolean undo(RestoreJournal.Unfinished restore, IProgressMonitor monitor) {
		List<IProject> projects = restore.projects().stream().map(workspace.getRoot()::getProject)
				.filter(IProject::isAccessible).toList();
		String names = String.join(", ", restore.projects()); //$NON-NLS-1$
		try {
			if (!projects.isEmpty()) {
				workspace.run(m -> {
					for (IProject project : projects) {
						RestoreOperation.discardDerivedData(project, contributors);
					}
				}, MultiRule.combine(projects.toArray(ISchedulingRule[]::new)), IWorkspace.AVOID_UPDATE, monitor);
			}
			journal.recovered(restore);
			Log.warning(NLS.bind(Messages.Service_restoreInterrupted, names));
			return true;
		} catch (CoreException | IOException | RuntimeException e) {
			// its projects are not saved meanwhile
			Log.warning(NLS.bind(Messages.Service_restoreNotRecovered, names, restore.file()), e);
			return false;
		}
	}
}
