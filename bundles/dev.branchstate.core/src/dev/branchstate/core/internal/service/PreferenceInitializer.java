package dev.branchstate.core.internal.service;

import org.eclipse.core.runtime.preferences.AbstractPreferenceInitializer;
import org.eclipse.core.runtime.preferences.DefaultScope;
import org.eclipse.core.runtime.preferences.IEclipsePreferences;

import dev.branchstate.core.BranchstatePreferences;

/** Fills the default scope with the documented defaults of {@link BranchstatePreferences}. */
public final class PreferenceInitializer extends AbstractPreferenceInitializer {

	@Override
	public void initializeDefaultPreferences() {
		IEclipsePreferences node = DefaultScope.INSTANCE.getNode(BranchstatePreferences.NODE);
		node.putBoolean(BranchstatePreferences.AUTO_SWITCH, true);
		node.put(BranchstatePreferences.BRANCH_PATTERNS, "*"); //$NON-NLS-1$
		node.put(BranchstatePreferences.STORE_LOCATION, ""); //$NON-NLS-1$
		node.putInt(BranchstatePreferences.DISK_BUDGET_MB, StateService.DEFAULT_BUDGET_MB);
		node.putInt(BranchstatePreferences.COMPRESSION_LEVEL, StateService.DEFAULT_LEVEL);
		node.putInt(BranchstatePreferences.WORKER_THREADS, 0);
		node.put(BranchstatePreferences.DERIVED_FOLDERS, ""); //$NON-NLS-1$
	}
}
