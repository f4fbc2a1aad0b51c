package dev.branchstate.core;

import java.io.File;
import java.time.Duration;

import org.eclipse.core.runtime.IStatus;

/**
 * Something that happened to a state: saved, restored, fetched from the remote store, skipped (with the reason), failed
 * (with the status) or deleted (by the user, or by the store: retired or evicted).
 *
 * @param kind      what happened
 * @param gitDir    the repository
 * @param commitId  the commit of the state (may be {@code null} when a switch was skipped before one was known)
 * @param branch    the branch name (short, e.g. {@code main}), or {@code null} for a detached HEAD
 * @param message   a sentence for the user: what and why
 * @param status    OK for SAVED and RESTORED, or a WARNING multi-status when some contributors failed and were
 *                  skipped (one child per failure, naming contributor and project); INFO for a SAVED state that
 *                  left out projects whose build was not complete, or a RESTORED one that left projects to their
 *                  builders (the message names them and says why, also with a WARNING); INFO for SKIPPED (CANCEL when
 *                  the operation was canceled); ERROR for FAILED
 * @param files     files saved or restored (0 when not applicable)
 * @param bytes     uncompressed bytes saved or restored
 * @param rebuilt   for RESTORED: source files handed to builders because they differ from the state
 * @param duration  wall time of the operation
 */
public record StateEvent(Kind kind, File gitDir, String commitId, String branch, String message, IStatus status,
		long files, long bytes, long rebuilt, Duration duration) {

	public enum Kind {
		SAVED, RESTORED, SKIPPED, FAILED,
		/**
		 * A stored state is gone: deleted by the user, retired by a newer state of its branch, or evicted by the disk
		 * budget ({@link StateEvent#message()} says which). Status OK; no figures.
		 */
		DELETED,
		/**
		 * A state was fetched from the remote store into the local store (to be restored from there); {@link
		 * StateEvent#bytes()} is the archive's size.
		 */
		FETCHED,
		/**
		 * The remote store failed several times in a row and is left alone until Eclipse restarts (switches then
		 * build instead of fetching). Sent once per session; no repository, commit or figures; status WARNING;
		 * {@link StateEvent#message()} names the store and the last failure.
		 */
		REMOTE_GIVEN_UP
	}
}
