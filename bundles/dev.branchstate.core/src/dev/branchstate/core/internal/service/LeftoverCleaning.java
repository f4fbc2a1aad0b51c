package dev.branchstate.core.internal.service;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Predicate;

import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.osgi.util.NLS;

import dev.branchstate.core.internal.Log;
import dev.branchstate.core.internal.Messages;
import dev.branchstate.core.internal.store.StateStore;

/**
 * Deletes what saves of a previous session left in a store when the IDE was killed or crashed: the files of archive
 * writers that are gone, and archives no catalog entry names (saves of other IDEs sharing the store are kept: see
 * {@link StateStore#cleanOrphans}). Runs when the store is first opened in a session, and once more after
 * {@link #RETRY_MS} when temporary files were left: a killed save's file written within the last two seconds cannot
 * be told from one just created and not locked yet, so an IDE restarted right after a crash would otherwise keep it,
 * and count it against the disk budget, until its next start.
 */
final class LeftoverCleaning {

	/** When the second look comes. */
	static final long RETRY_MS = 3_000;

	private LeftoverCleaning() {
	}

	/**
	 * Cleans now, and schedules the second look when needed.
	 *
	 * @param current whether a store is still the one the service uses (a second look at another is skipped)
	 */
	static void start(StateStore store, Predicate<StateStore> current) {
		clean(store);
		try {
			if (store.hasTemporaryFiles()) {
				Job again = new Job(Messages.Store_cleaningJob) {
					@Override
					protected IStatus run(IProgressMonitor monitor) {
						if (current.test(store)) {
							clean(store);
						}
						return Status.OK_STATUS;
					}

					@Override
					public boolean belongsTo(Object family) {
						return family == StateService.LEFTOVERS_FAMILY;
					}
				};
				again.setSystem(true);
				again.schedule(RETRY_MS);
			}
		} catch (IOException | RuntimeException e) {
			Log.warning(NLS.bind(Messages.Store_leftoversNotDeleted, store.directory()), e);
		}
	}

	private static void clean(StateStore store) {
		try {
			for (Path file : store.cleanOrphans()) {
				Log.info(NLS.bind(Messages.Store_leftoverDeleted, file));
			}
		} catch (IOException | RuntimeException e) {
			Log.warning(NLS.bind(Messages.Store_leftoversNotDeleted, store.directory()), e);
		}
	}
}
