package dev.branchstate.core.internal.switching;

import java.util.Objects;
import java.util.function.Predicate;

import org.eclipse.osgi.util.NLS;

import dev.branchstate.core.internal.Messages;

/**
 * What the switch protocol knows about one repository's derived data on disk, and the one rule that says whether it
 * may be saved as the state of a commit. Every transition is a method named after what happened (a switch was
 * handled, a build ran, a state was saved or restored…); nothing else writes these fields. Callers hold the
 * repository's lock, except for {@link #savedBySomeone(String)}, which only records a commit for the next
 * transition to use.
 * <p>
 * Whether the derived data is a <em>complete</em> build (every builder built the current tree, no build pending) is
 * the state service's check at every save; this class knows <em>which commit</em> the data reflects.
 */
final class DiskState {

	/** What {@link #toSave} decided. */
	sealed interface Decision {
	}

	/** Save the derived data as the state of {@code head}. */
	record Save(Head head) implements Decision {
	}

	/** A stored state already equals the derived data on disk. */
	record AlreadyStored(Head head) implements Decision {
	}

	/** Do not save, for {@code reason} (told to the user in a SKIPPED event where a switch asked). */
	record Skip(String reason) implements Decision {
	}

	/** The last HEAD the protocol handled, {@code null} before the repository's HEAD was first read. */
	private Head handled;
	/** The HEAD the derived data on disk reflects; {@code null} when unknown (then it is never saved). */
	private Head derived;
	/** Whether a stored state of {@link #derived} is identical to the derived data (saved or restored, no build since). */
	private boolean stored;
	/**
	 * HEAD moved while Eclipse was closed: the derived data on disk may have changed too (a build from the command
	 * line), so it is not saved as the state being left.
	 */
	private boolean movedWhileClosed;
	/** The HEAD for which the state being left was already saved ahead of a refresh during this switch. */
	private Head savedAheadFor;
	/** The commit of the last state saved by anyone (the Save State command included) since the last build. */
	private volatile String savedBySomeone;

	// ---- queries ----

	Head handled() {
		return handled;
	}

	Head derived() {
		return derived;
	}

	/** @return whether a stored state equals the derived data on disk (kept across restarts with the HEADs) */
	boolean stored() {
		return stored && derived != null;
	}

	boolean isHandled(Head head) {
		return Objects.equals(handled, head);
	}

	/** @return whether the state being left was saved ahead of a refresh for this switch to {@code target} */
	boolean savedAheadFor(Head target) {
		return target.equals(savedAheadFor);
	}

	/** @return whether the derived data on disk is the stored state of {@code commitId} (restoring it writes nothing) */
	boolean isStoredStateOf(String commitId) {
		return stored && derived != null && derived.commitId().equals(commitId);
	}

	/**
	 * The one "may this be saved?" rule of the switch protocol, for the switch and the shutdown save alike.
	 *
	 * @param name       the repository as the user knows it
	 * @param patterns   the branch patterns of the preferences
	 * @param stateExists whether a state of a commit is in the store now
	 */
	Decision toSave(String name, String patterns, Predicate<String> stateExists) {
		Head left = derived;
		if (movedWhileClosed) { // the data on disk is unknown then (derived is null)
			return new Skip(NLS.bind(Messages.Switch_notSavedMovedWhileClosed, name, handled.describe()));
		}
		if (left == null) {
			return new Skip(NLS.bind(Messages.Switch_notSavedUnknown, name));
		}
		if ((stored || left.commitId().equals(savedBySomeone)) && stateExists.test(left.commitId())) {
			return new AlreadyStored(left);
		}
		if (left.detached()) {
			return new Skip(NLS.bind(Messages.Switch_notSavedDetached, name, left.shortId()));
		}
		if (!SwitchProtocol.matches(patterns, left.branch())) {
			return new Skip(NLS.bind(Messages.Switch_notSavedPattern, new Object[] { name, left.branch(), patterns }));
		}
		return new Save(left);
	}

	// ---- transitions ----

	/** The repository is seen for the first time (or its HEAD was unborn): the derived data is taken for HEAD's. */
	void firstSeen(Head current) {
		handled = current;
		derived = current;
		stored = false;
	}

	/**
	 * Eclipse started again and found what it remembered of the repository: when HEAD moved meanwhile, the derived
	 * data on disk may have been rebuilt for another commit, so what it reflects is unknown until a restore or a build.
	 *
	 * @return whether HEAD moved while Eclipse was closed (a switch to handle)
	 */
	boolean remembered(Head lastHandled, Head lastDerived, boolean lastStored, Head current) {
		handled = lastHandled;
		movedWhileClosed = !lastHandled.equals(current);
		derived = movedWhileClosed ? null : lastDerived;
		stored = !movedWhileClosed && lastStored;
		return movedWhileClosed;
	}

	/** HEAD moved within its branch: derived data that followed a commit belongs to the new commit, else unknown. */
	void movedWithinBranch(Head target, boolean byCommit) {
		boolean followed = Objects.equals(derived, handled);
		derived = followed && byCommit ? target : null;
		stored = false;
	}

	/**
	 * The checkout reached builders and models unhandled (automatic switching is off, or a build ran while HEAD
	 * moved): until a build has run on the new tree, what the derived data reflects is unknown.
	 */
	void unknown() {
		derived = null;
		stored = false;
	}

	/** The state being left was saved ahead of the refresh that the switch to {@code target} is making. */
	void savedAhead(Head target) {
		savedAheadFor = target;
	}

	/** The derived data was saved as the state of {@code head}. */
	void saved(Head head) {
		derived = head;
		stored = true;
	}

	/** A state was saved by anyone (an event, no lock held): remembered until the next build. */
	void savedBySomeone(String commitId) {
		savedBySomeone = commitId;
	}

	/** Someone saved the state of the commit handled (the Save State command): it is what the disk holds now. */
	void savedAtHead(String commitId) {
		if (handled != null && commitId.equals(handled.commitId()) && !movedWhileClosed) {
			derived = handled;
			stored = true;
		}
	}

	/** A restore is starting: until it has finished, a failed one leaves the data unknown. */
	void restoring() {
		unknown();
	}

	/** The stored state of {@code head} was restored: the disk holds exactly it. */
	void restored(Head head) {
		derived = head;
		stored = true;
	}

	/**
	 * A build changed the derived data. It reflects the HEAD handled, unless HEAD moved while the build ran (its
	 * builders may have read files of either commit) or it was a clean build (the data is gone).
	 */
	void built(boolean clean, Head headNow) {
		if (handled == null) {
			return;
		}
		derived = clean || !handled.equals(headNow) ? null : handled;
		stored = false;
		savedBySomeone = null;
	}

	/** The switch to {@code target} has been handled (whatever its outcome). */
	void switchHandled(Head target) {
		handled = target;
		savedAheadFor = null;
		movedWhileClosed = false;
	}
}
