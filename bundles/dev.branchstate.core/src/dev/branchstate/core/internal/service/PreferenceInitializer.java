package dev.branchstate.core.internal.service;

import org.eclipse.core.runtime.preferences.AbstractPreferenceInitializer;
import org.eclipse.core.runtime.preferences.DefaultScope;
import org.eclipse.core.runtime.preferences.IEclipsePreferences;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.core.internal.prefetch.PrefetchSettings;

/** Fills the default scope with the documented defaults of {@link BranchstatePreferences}. */
public final class PreferenceInitializer extends AbstractPreferenceInitializer {

	@Override
	public void initializeDefaultPreferences() {
		IEclipsePreferences node = DefaultScope.INSTANCE.getNode(BranchstatePreferences.NODE);
		node.putBoolean(BranchstatePreferences.AUTO_SWITCH, true);
		node.putBoolean(BranchstatePreferences.SAVE_AHEAD, true);
		node.put(BranchstatePreferences.BRANCH_PATTERNS, "*"); //$NON-NLS-1$
		node.put(BranchstatePreferences.STORE_LOCATION, ""); //$NON-NLS-1$
		node.putInt(BranchstatePreferences.DISK_BUDGET_MB, StorePreferences.DEFAULT_BUDGET_MB);
		node.putInt(BranchstatePreferences.COMPRESSION_LEVEL, StorePreferences.DEFAULT_LEVEL);
		node.putInt(BranchstatePreferences.WORKER_THREADS, 0);
		node.put(BranchstatePreferences.DERIVED_FOLDERS, ""); //$NON-NLS-1$
		node.put(BranchstatePreferences.REMOTE_ENDPOINT, ""); //$NON-NLS-1$
		node.put(BranchstatePreferences.REMOTE_BUCKET, ""); //$NON-NLS-1$
		node.put(BranchstatePreferences.REMOTE_PREFIX, "branchstate"); //$NON-NLS-1$
		node.put(BranchstatePreferences.REMOTE_REGION, "us-east-1"); //$NON-NLS-1$
		node.putBoolean(BranchstatePreferences.REMOTE_PATH_STYLE, false);
		node.put(BranchstatePreferences.REMOTE_PUBLIC_KEY, ""); //$NON-NLS-1$
		node.putBoolean(BranchstatePreferences.REMOTE_FETCH_ON_SWITCH, true);
		node.putInt(BranchstatePreferences.REMOTE_TIMEOUT_SECONDS, 10);
		node.putInt(BranchstatePreferences.REMOTE_FETCH_DEADLINE_SECONDS, 120);
		node.putBoolean(BranchstatePreferences.PREFETCH, true);
		node.put(BranchstatePreferences.PREFETCH_REFS, ""); //$NON-NLS-1$
		node.putInt(BranchstatePreferences.PREFETCH_BUDGET_PERCENT, PrefetchSettings.DEFAULT_BUDGET_PERCENT);
		node.putInt(BranchstatePreferences.PREFETCH_MAX_MB_PER_DAY, PrefetchSettings.DEFAULT_MAX_MB_PER_DAY);
	}
}
