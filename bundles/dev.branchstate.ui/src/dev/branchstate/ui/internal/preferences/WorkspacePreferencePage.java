package dev.branchstate.ui.internal.preferences;

import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.jface.preference.FieldEditorPreferencePage;
import org.eclipse.jface.preference.IPreferenceStore;
import org.eclipse.ui.IWorkbench;
import org.eclipse.ui.IWorkbenchPreferencePage;
import org.eclipse.ui.preferences.ScopedPreferenceStore;

import dev.branchstate.core.BranchstatePreferences;

/**
 * A page of Branchstate's workspace-wide preferences (instance scope of node {@link BranchstatePreferences#NODE}),
 * with the defaults core documents for keys its default scope lacks.
 */
abstract class WorkspacePreferencePage extends FieldEditorPreferencePage implements IWorkbenchPreferencePage {

	WorkspacePreferencePage(String description) {
		super(GRID);
		setDescription(description);
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
}
