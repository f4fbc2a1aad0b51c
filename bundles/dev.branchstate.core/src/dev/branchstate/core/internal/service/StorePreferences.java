package dev.branchstate.core.internal.service;

import java.nio.file.Path;

import org.eclipse.core.runtime.Platform;
import org.osgi.framework.FrameworkUtil;

import dev.branchstate.archive.WriteOptions;
import dev.branchstate.core.BranchstatePreferences;

/** The persisted values of Branchstate's preferences that the store, the saves and the restores read. */
public final class StorePreferences {

	/** Default disk budget of the store in MiB. */
	public static final int DEFAULT_BUDGET_MB = 10240;
	/** Default zstd level: the archive's own. */
	public static final int DEFAULT_LEVEL = WriteOptions.DEFAULT_LEVEL;

	private StorePreferences() {
	}

	/** @return the disk budget in bytes */
	public static long budgetBytes() {
		return intValue(BranchstatePreferences.DISK_BUDGET_MB, DEFAULT_BUDGET_MB) * 1024L * 1024;
	}

	/** @return the persisted value of an integer preference of Branchstate */
	static int intValue(String key, int defaultValue) {
		return Platform.getPreferencesService().getInt(BranchstatePreferences.NODE, key, defaultValue, null);
	}

	/** @return the store's folder the preference names, the bundle's state location by default */
	static Path storeLocation() {
		String value = Platform.getPreferencesService().getString(BranchstatePreferences.NODE,
				BranchstatePreferences.STORE_LOCATION, "", null); //$NON-NLS-1$
		if (!value.isBlank()) {
			return Path.of(value.trim());
		}
		return Platform.getStateLocation(FrameworkUtil.getBundle(StorePreferences.class)).append("store").toPath(); //$NON-NLS-1$
	}
}
