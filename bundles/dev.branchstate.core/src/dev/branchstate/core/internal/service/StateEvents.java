package dev.branchstate.core.internal.service;

import java.io.File;
import java.time.Duration;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.ListenerList;
import org.eclipse.core.runtime.MultiStatus;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.SafeRunner;
import org.eclipse.core.runtime.Status;
import org.eclipse.osgi.util.NLS;

import dev.branchstate.core.IStateListener;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateInfo;

/**
 * The state listeners and what saves, restores and deletions tell them: one event per outcome, each listener called
 * safely. A failure is told once here and returned as the exception to throw; it is not logged here.
 */
final class StateEvents {

	private final ListenerList<IStateListener> listeners = new ListenerList<>();

	void add(IStateListener listener) {
		listeners.add(listener);
	}

	void remove(IStateListener listener) {
		listeners.remove(listener);
	}

	void fire(StateEvent event) {
		for (IStateListener l : listeners) {
			SafeRunner.run(() -> l.stateChanged(event));
		}
	}

	/** Tells the listeners that a state is gone; {@code message} binds the repository and the short commit id. */
	void deleted(StateInfo state, String message) {
		deletedBecause(state, NLS.bind(message, state.gitDir(), GitFacts.shortId(state.commitId())));
	}

	void deletedBecause(StateInfo state, String text) {
		String branch = state.branches().isEmpty() ? null : state.branches().get(0);
		fire(new StateEvent(StateEvent.Kind.DELETED, state.gitDir(), state.commitId(), branch, text,
				Status.OK_STATUS, 0, 0, 0, Duration.ZERO));
	}

	/** Tells the listeners that there was nothing to do, and why; @return the INFO exception to throw */
	CoreException skipped(File dir, String commit, String branch, String message, long start) {
		fire(new StateEvent(StateEvent.Kind.SKIPPED, dir, commit, branch, message, Status.info(message), 0, 0, 0,
				elapsed(start)));
		return new CoreException(Status.info(message));
	}

	/** Tells the listeners that an operation was canceled ({@code message} binds the repository); @return e */
	OperationCanceledException canceled(String message, File dir, String commit, String branch,
			OperationCanceledException e, long start) {
		fire(new StateEvent(StateEvent.Kind.SKIPPED, dir, commit, branch, NLS.bind(message, dir),
				Status.CANCEL_STATUS, 0, 0, 0, elapsed(start)));
		return e;
	}

	/** Tells the listeners of a failure once and returns the exception to throw (the caller logs it). */
	CoreException failed(String template, File dir, String commit, String branch, String reason, Throwable e,
			long start) {
		String message = NLS.bind(template, new Object[] { dir, GitFacts.shortId(commit), reason });
		IStatus status = failure(message, e);
		fire(new StateEvent(StateEvent.Kind.FAILED, dir, commit, branch, message, status, 0, 0, 0,
				elapsed(start)));
		return new CoreException(status);
	}

	/** @return an ERROR status for a failed operation, with the contributors' failures as children if any */
	private static IStatus failure(String message, Throwable e) {
		if (e instanceof CoreException ce && ce.getStatus() instanceof MultiStatus ms && ms.getChildren().length > 0) {
			MultiStatus status = new MultiStatus(StateService.class, 0, message);
			status.add(Status.error(message, e));
			for (IStatus child : ms.getChildren()) {
				status.add(child);
			}
			return status;
		}
		return Status.error(message, e);
	}

	/** @return the time since {@code start} ({@link System#nanoTime()}) */
	static Duration elapsed(long start) {
		return Duration.ofNanos(System.nanoTime() - start);
	}
}
