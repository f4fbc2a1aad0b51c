package dev.branchstate.core.internal.prefetch;

import java.util.List;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.ProjectScope;
import org.eclipse.core.runtime.Platform;
import org.eclipse.core.runtime.preferences.IPreferencesService;
import org.eclipse.core.runtime.preferences.IScopeContext;
import org.eclipse.core.runtime.preferences.InstanceScope;

import dev.branchstate.core.BranchstatePreferences;

/**
 * The prefetch preferences of a repository, read for its first project (project scope, then instance scope, then the
 * defaults defined here).
 *
 * @param enabled        {@link BranchstatePreferences#PREFETCH}
 * @param refPatterns    {@link BranchstatePreferences#PREFETCH_REFS}, empty for the default selection
 * @param branchPatterns {@link BranchstatePreferences#BRANCH_PATTERNS}, the branches whose states are kept
 * @param budgetPercent  {@link BranchstatePreferences#PREFETCH_BUDGET_PERCENT}
 * @param maxBytesPerDay {@link BranchstatePreferences#PREFETCH_MAX_MB_PER_DAY}, in bytes
 */
public record PrefetchSettings(boolean enabled, String refPatterns, String branchPatterns, int budgetPercent,
		long maxBytesPerDay) {

	public static final int DEFAULT_BUDGET_PERCENT = 25;
	public static final int DEFAULT_MAX_MB_PER_DAY = 2048;

	/** @return the settings in effect for a repository with these projects */
	public static PrefetchSettings of(List<IProject> projects) {
		IPreferencesService service = Platform.getPreferencesService();
		IScopeContext[] contexts = projects.isEmpty() ? null
				: new IScopeContext[] { new ProjectScope(projects.get(0)), InstanceScope.INSTANCE };
		String node = BranchstatePreferences.NODE;
		int percent = service.getInt(node, BranchstatePreferences.PREFETCH_BUDGET_PERCENT, DEFAULT_BUDGET_PERCENT,
				contexts);
		long mb = service.getInt(node, BranchstatePreferences.PREFETCH_MAX_MB_PER_DAY, DEFAULT_MAX_MB_PER_DAY, contexts);
		return new PrefetchSettings(service.getBoolean(node, BranchstatePreferences.PREFETCH, true, contexts),
				service.getString(node, BranchstatePreferences.PREFETCH_REFS, "", contexts).strip(), //$NON-NLS-1$
				service.getString(node, BranchstatePreferences.BRANCH_PATTERNS, "*", contexts), //$NON-NLS-1$
				Math.clamp(percent, 0, 100), Math.max(0, mb) * 1024 * 1024);
	}

	/** @return the bytes that prefetched states not restored yet may take of a store with this disk budget */
	public long budgetBytes(long diskBudgetBytes) {
		return diskBudgetBytes / 100 * budgetPercent;
	}
}
