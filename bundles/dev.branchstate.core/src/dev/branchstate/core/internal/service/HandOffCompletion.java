package dev.branchstate.core.internal.service;

import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResourceChangeEvent;
import org.eclipse.core.resources.IResourceChangeListener;
import org.eclipse.core.resources.ISaveContext;
import org.eclipse.core.resources.ISaveParticipant;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.runtime.CoreException;

import dev.branchstate.core.internal.Log;

/**
 * Ends the records of restores that wait for their projects' builders ({@link RestoreJournal.Entry#awaitBuild}):
 * after each build, those whose every project is built (its builders have built the current tree and every
 * contributor counts its build as complete; or the project is gone), and at a full workspace save every record of a
 * restore that ended before it (the save writes the hand-off: the builders' trees and JDT's state).
 */
final class HandOffCompletion implements IResourceChangeListener, ISaveParticipant {

	/** The id this participant is registered under (not the bundle's: the switch manager takes that one). */
	static final String SAVE_PARTICIPANT = "dev.branchstate.core.restores"; //$NON-NLS-1$

	private final IWorkspace workspace;
	private final RestoreJournal journal;
	private final Function<IProject, Optional<String>> whyNotBuilt;
	/** The records that waited when the running full save began. */
	private volatile Set<Path> savedWith = Set.of();

	/** @param whyNotBuilt why a project's build is not complete, empty when it is (the state service's) */
	HandOffCompletion(IWorkspace workspace, RestoreJournal journal, Function<IProject, Optional<String>> whyNotBuilt) {
		this.workspace = workspace;
		this.journal = journal;
		this.whyNotBuilt = whyNotBuilt;
	}

	void install() {
		workspace.addResourceChangeListener(this, IResourceChangeEvent.POST_BUILD);
		try {
			workspace.addSaveParticipant(SAVE_PARTICIPANT, this);
		} catch (CoreException e) {
			Log.log(e.getStatus()); // the records then end after builds only
		}
	}

	void uninstall() {
		workspace.removeResourceChangeListener(this);
		workspace.removeSaveParticipant(SAVE_PARTICIPANT);
	}

	/** After a build (in the notification: the workspace's tree is locked, which the comparison needs). */
	@Override
	public void resourceChanged(IResourceChangeEvent event) {
		if (journal.awaitsBuild()) {
			journal.closeBuilt(this::built);
		}
	}

	private boolean built(String name) {
		IProject project = workspace.getRoot().getProject(name);
		return !project.isAccessible() || whyNotBuilt.apply(project).isEmpty();
	}

	@Override
	public void prepareToSave(ISaveContext context) {
		savedWith = context.getKind() == ISaveContext.FULL_SAVE ? journal.awaitingBuild() : Set.of();
	}

	@Override
	public void saving(ISaveContext context) {
		// nothing of its own to write
	}

	@Override
	public void doneSaving(ISaveContext context) {
		if (context.getKind() == ISaveContext.FULL_SAVE) {
			journal.closeAll(savedWith);
		}
		savedWith = Set.of();
	}

	@Override
	public void rollback(ISaveContext context) {
		savedWith = Set.of();
	}
}
