package dev.branchstate.ui.internal.preferences;

import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.jface.preference.FieldEditorPreferencePage;
import org.eclipse.jface.preference.IPreferenceStore;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.ui.IWorkbench;
import org.eclipse.ui.IWorkbenchPreferencePage;
import org.eclipse.ui.preferences.ScopedPreferenceStore;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.ui.internal.HelpContexts;

/**
 * A page of Branchstate's workspace-wide preferences (instance scope of node {@link BranchstatePreferences#NODE}),
 * with the defaults core documents for keys its default scope lacks.
 */
abstract class WorkspacePreferencePage extends FieldEditorPreferencePage implements IWorkbenchPreferencePage {

	private final String helpContextId;

	WorkspacePreferencePage(String description, String helpContextId) {
		super(GRID);
		setDescription(description);
		this.helpContextId = helpContextId;
	}

	@Override
	public void createControl(Composite parent) {
		super.createControl(parent);
		HelpContexts.set(getControl(), helpContextId);
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
