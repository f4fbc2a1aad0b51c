package dev.branchstate.ui.internal.preferences;

import org.eclipse.core.runtime.preferences.DefaultScope;
import org.eclipse.core.runtime.preferences.IEclipsePreferences;
import org.eclipse.core.runtime.preferences.IScopeContext;
import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.jface.preference.IPreferenceStore;

import dev.branchstate.core.BranchstatePreferences;

/**
 * Default values as the preference pages show them. Core owns the defaults (its preference initializer fills the
 * default scope); the values documented on {@link BranchstatePreferences} stand in for a key the default scope
 * does not have, so that the page never offers a default core would refuse (a budget of 0, level 0).
 */
final class PreferenceDefaults {

	static final String[] KEYS = { BranchstatePreferences.AUTO_SWITCH, BranchstatePreferences.SAVE_AHEAD,
			BranchstatePreferences.BRANCH_PATTERNS,
			BranchstatePreferences.STORE_LOCATION, BranchstatePreferences.DISK_BUDGET_MB,
			BranchstatePreferences.COMPRESSION_LEVEL, BranchstatePreferences.WORKER_THREADS,
			BranchstatePreferences.DERIVED_FOLDERS };

	private PreferenceDefaults() {
	}

	/** The documented default of a key, as a string. */
	static String documented(String key) {
		return switch (key) {
			case BranchstatePreferences.AUTO_SWITCH, BranchstatePreferences.SAVE_AHEAD -> "true"; //$NON-NLS-1$
			case BranchstatePreferences.BRANCH_PATTERNS -> "*"; //$NON-NLS-1$
			case BranchstatePreferences.DISK_BUDGET_MB -> "10240"; //$NON-NLS-1$
			case BranchstatePreferences.COMPRESSION_LEVEL -> "3"; //$NON-NLS-1$
			case BranchstatePreferences.WORKER_THREADS -> "0"; //$NON-NLS-1$
			default -> ""; //$NON-NLS-1$
		};
	}

	/** The default of a key: core's default scope, else the documented one. */
	static String get(String key) {
		return DefaultScope.INSTANCE.getNode(BranchstatePreferences.NODE).get(key, documented(key));
	}

	/** The workspace value of a key: instance scope, else the default. */
	static String workspace(String key) {
		return InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE).get(key, get(key));
	}

	/** Gives {@code store} a default for every key the default scope lacks. */
	static void fillMissingDefaults(IPreferenceStore store) {
		IEclipsePreferences defaults = DefaultScope.INSTANCE.getNode(BranchstatePreferences.NODE);
		for (String key : KEYS) {
			if (defaults.get(key, null) == null) {
				store.setDefault(key, documented(key));
			}
		}
	}

	/** @return the node of {@code scope} that holds Branchstate's preferences */
	static IEclipsePreferences node(IScopeContext scope) {
		return scope.getNode(BranchstatePreferences.NODE);
	}
}
