package dev.branchstate.ui.internal.preferences;

import org.eclipse.swt.widgets.Composite;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.ui.internal.HelpContexts;
import dev.branchstate.ui.internal.Messages;

/**
 * Window › Preferences › Branchstate: switching and the local store, workspace-wide (instance scope of node
 * {@link BranchstatePreferences#NODE}). Values core could not use are refused with a message on the page.
 */
public class BranchstatePreferencePage extends WorkspacePreferencePage {

	public BranchstatePreferencePage() {
		super(Messages.Pref_description, HelpContexts.PREFERENCE_PAGE);
	}

	@Override
	protected void createFieldEditors() {
		Composite parent = getFieldEditorParent();
		addField(PreferenceFields.autoSwitch(parent));
		addField(PreferenceFields.saveAhead(parent));
		addField(PreferenceFields.branchPatterns(parent));
		addField(PreferenceFields.derivedFolders(parent));
		addField(PreferenceFields.storeLocation(parent));
		addField(PreferenceFields.diskBudget(parent));
		addField(PreferenceFields.compressionLevel(parent));
		addField(PreferenceFields.workerThreads(parent));
	}
}
