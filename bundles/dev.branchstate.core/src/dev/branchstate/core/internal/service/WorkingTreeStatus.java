package dev.branchstate.core.internal.service;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.eclipse.jgit.lib.Repository;

/**
 * What {@code git status} finds in a working tree: the paths dirty in it (untracked files Git does not ignore
 * included), and when the reading began. A restore compares the working tree with its state through it; a switch
 * reads it ahead, on a thread of its own, while it refreshes the workspace.
 *
 * @param at    taken before the working tree was read
 * @param dirty repository-relative paths
 */
public record WorkingTreeStatus(Instant at, Set<String> dirty) {

	public WorkingTreeStatus {
		dirty = Set.copyOf(dirty);
	}

	/** @return the status now, read in the calling thread */
	public static WorkingTreeStatus read(Repository repository) throws IOException {
		Instant at = Instant.now();
		return new WorkingTreeStatus(at, ChangedPaths.dirty(repository));
	}

	/**
	 * Starts reading the status on a thread of its own. Call it once the checkout is complete (HEAD moved): what the
	 * caller does meanwhile must not write a file Git sees.
	 *
	 * @return the status, or an {@link UncheckedIOException} when Git could not read the working tree
	 */
	public static CompletableFuture<WorkingTreeStatus> readAhead(Repository repository) {
		CompletableFuture<WorkingTreeStatus> status = new CompletableFuture<>();
		Thread.ofPlatform().daemon().name("Branchstate git status").start(() -> { //$NON-NLS-1$
			try {
				status.complete(read(repository));
			} catch (IOException e) {
				status.completeExceptionally(new UncheckedIOException(e));
			} catch (RuntimeException | Error e) {
				status.completeExceptionally(e);
			}
		});
		return status;
	}
}
