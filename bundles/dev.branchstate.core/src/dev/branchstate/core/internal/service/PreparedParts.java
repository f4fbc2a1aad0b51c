package dev.branchstate.core.internal.service;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.core.runtime.OperationCanceledException;

import dev.branchstate.core.internal.service.RestoreOperation.Selected;

/**
 * The parts of a restore read and decoded ahead ({@link dev.branchstate.core.IStateContributor#prepare}), in the
 * order they will be restored, on one thread of their own: while the restore's thread writes the first parts (the
 * output folders, mostly waiting on the file system), this one decodes the next (markers, builder states, indexes).
 * One thread, not the restore's worker pool, so that the extractions' workers never wait behind a decoding. It runs
 * as far ahead as it can: what it decoded is held until its part is restored, at most the decoded non-folder parts of
 * the state (an output folder is extracted by its restore, not read ahead). Closing stops what has not started and
 * waits for what has: nothing reads the archive once the restore has returned.
 */
final class PreparedParts implements AutoCloseable {

	private final ExecutorService thread;
	private final List<Future<Object>> results = new ArrayList<>();

	private PreparedParts(List<Selected> selected, List<RestoreContext> contexts, BooleanSupplier canceled) {
		thread = Executors.newSingleThreadExecutor(
				Thread.ofPlatform().name("branchstate-restore-prepare").daemon().factory()); //$NON-NLS-1$
		NullProgressMonitor monitor = new NullProgressMonitor() {
			@Override
			public boolean isCanceled() {
				return canceled.getAsBoolean();
			}
		};
		for (int i = 0; i < selected.size(); i++) {
			Selected s = selected.get(i);
			RestoreContext context = contexts.get(i);
			results.add(thread.submit(() -> s.contributor().prepare(context, monitor)));
		}
		thread.shutdown(); // (its tasks run to the end)
	}

	/** Starts preparing every part, in order. */
	static PreparedParts start(List<Selected> selected, List<RestoreContext> contexts, BooleanSupplier canceled) {
		return new PreparedParts(selected, contexts, canceled);
	}

	/**
	 * Waits for the part's preparation.
	 *
	 * @return what its contributor's prepare returned
	 * @throws CoreException the failure of its prepare, as it threw it (a runtime exception or error likewise)
	 */
	Object await(int part) throws CoreException {
		try {
			return results.get(part).get();
		} catch (ExecutionException e) {
			Throwable cause = e.getCause();
			if (cause instanceof CoreException c) {
				throw c;
			}
			if (cause instanceof RuntimeException r) {
				throw r;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw new IllegalStateException(cause);
		} catch (CancellationException e) {
			throw new OperationCanceledException();
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			throw new OperationCanceledException();
		}
	}

	@Override
	public void close() {
		results.forEach(f -> f.cancel(false));
		thread.close(); // waits for the one that runs
	}
}
