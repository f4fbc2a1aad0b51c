package dev.branchstate.ui.internal.preferences;

import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.jface.preference.FieldEditorPreferencePage;
import org.eclipse.jface.preference.IPreferenceStore;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.ui.IWorkbench;
import org.eclipse.ui.IWorkbenchPreferencePage;
import org.eclipse.ui.preferences.ScopedPreferenceStore;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.ui.internal.Messages;

/**
 * Window › Preferences › Branchstate: every Branchstate preference, workspace-wide (instance scope of node
 * {@link BranchstatePreferences#NODE}). Values core could not use are refused with a message on the page.
 */
public class BranchstatePreferencePage extends FieldEditorPreferencePage implements IWorkbenchPreferencePage {

	public BranchstatePreferencePage() {
		super(GRID);
		setDescription(Messages.Pref_description);
	}

	@Override
	public void init(IWorkbench workbench) {
		// nothing to do: the store is made on first use
	}

	@Override
	protected IPreferenceStore doGetPreferenceStore() {
		ScopedPreferenceStore store = new ScopedPreferenceStore(InstanceScope.INSTANCE, BranchstatePreferences.NODE);
		PreferenceDefaults.fillMissingDefaults(store);
		return store;
	}

	@Override
	protected void createFieldEditors() {
		Composite parent = getFieldEditorParent();
		addField(PreferenceFields.autoSwitch(parent));
		addField(PreferenceFields.branchPatterns(parent));
		addField(PreferenceFields.derivedFolders(parent));
		addField(PreferenceFields.storeLocation(parent));
		addField(PreferenceFields.diskBudget(parent));
		addField(PreferenceFields.compressionLevel(parent));
		addField(PreferenceFields.workerThreads(parent));
	}
}
