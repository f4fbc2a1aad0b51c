package dev.branchstate.ui.internal;

import java.util.Arrays;
import java.util.stream.Collectors;

import org.eclipse.core.runtime.IStatus;
import org.eclipse.osgi.util.NLS;
import org.eclipse.ui.IStartup;

import dev.branchstate.core.StateEvent;

/**
 * Tells the user what the automatic switch did, without getting in the way: a popup after a restore (what, how
 * many files, how long, how many changed files the builders redo) or after a failure (why Eclipse rebuilds instead),
 * the status line for saves and skips (a skip is routine: a branch not kept, automatic switching off, no state
 * stored yet; the Branch States view shows the reason too).
 * <p>
 * Subscribed at workbench start-up ({@code org.eclipse.ui.startup}) or at the UI's first use of the service,
 * whichever comes first; the state service calls it on its worker thread and {@link Notices} hands over to the
 * display thread.
 * <p>
 * Failures are logged to the Error Log once, by whoever handled them (the switch protocol, or the job framework for
 * the status a Save or Restore State job returns); this class only tells the user.
 */
public final class StateEventNotifier implements IStartup, StateServices.Subscriber {

	/** The one subscriber; the instance the workbench makes for early start-up only opens the tracker. */
	static final StateEventNotifier INSTANCE = new StateEventNotifier();

	@Override
	public void earlyStartup() {
		StateServices.subscribe(INSTANCE);
	}

	@Override
	public void stateChanged(StateEvent event) {
		switch (event.kind()) {
			case RESTORED -> Notices.popup(Messages.Notice_restoredTitle, describe(event), partial(event));
			case FAILED -> Notices.popup(Messages.Notice_failedTitle, describe(event), true);
			case SKIPPED, SAVED -> {
				if (!canceled(event)) { // cancelled by the user, or a background save ahead stopped by a build
					Notices.status(describe(event), partial(event));
				}
			}
			case DELETED, FETCHED -> Notices.status(describe(event), false);
			case REMOTE_GIVEN_UP -> Notices.popup(Messages.Notice_remoteGivenUpTitle, describe(event), true);
		}
	}

	/**
	 * What happened, as one or two sentences: the figures of a restore or save ("Restored 'feature-x': 28,114 files
	 * in 1.2 s; 14 changed files rebuilt"), the service's own sentence for a skip or failure (it says why and that
	 * builders rebuild), and the contributors that failed when a restore or save was only partial.
	 */
	public static String describe(StateEvent event) {
		String name = nameOf(event);
		String text = switch (event.kind()) {
			case RESTORED -> restoredText(event, name);
			case SAVED -> leftOut(event) ? event.message()
					: NLS.bind(Messages.Notice_saved,
							new Object[] { name, Formats.count(event.files()), Formats.duration(event.duration()) });
			case SKIPPED, DELETED, FETCHED, REMOTE_GIVEN_UP -> reason(event);
			case FAILED -> NLS.bind(Messages.Notice_failed, reason(event));
		};
		if (partial(event)) {
			text += ' ' + NLS.bind(Messages.Notice_partial, problems(event.status()));
		} else if (event.kind() == StateEvent.Kind.RESTORED && leftOut(event)) {
			text += ' ' + problems(event.status()); // the projects left to their builders, and why
		}
		return text;
	}

	/** @return whether the event tells of work that was cancelled (nothing to tell the one who cancelled it) */
	private static boolean canceled(StateEvent event) {
		return event.status() != null && event.status().getSeverity() == IStatus.CANCEL;
	}

	/** @return whether a SAVED or RESTORED event says that projects were left to their builders (INFO) */
	private static boolean leftOut(StateEvent event) {
		return event.status() != null && event.status().getSeverity() == IStatus.INFO;
	}

	/** @return whether a RESTORED or SAVED event says some contributors failed (a WARNING status) */
	public static boolean partial(StateEvent event) {
		return (event.kind() == StateEvent.Kind.RESTORED || event.kind() == StateEvent.Kind.SAVED)
				&& event.status() != null && event.status().matches(IStatus.WARNING | IStatus.ERROR);
	}

	private static String problems(IStatus status) {
		if (!status.isMultiStatus() || status.getChildren().length == 0) {
			return status.getMessage();
		}
		return Arrays.stream(status.getChildren()).filter(c -> !c.isOK()).map(IStatus::getMessage)
				.collect(Collectors.joining("; ")); //$NON-NLS-1$
	}

	/** "Restored 'feature-x': 28,114 files in 1.2 s; 14 changed files rebuilt" */
	static String restoredText(StateEvent event, String name) {
		String restored = NLS.bind(Messages.Notice_restored,
				new Object[] { name, Formats.count(event.files()), Formats.duration(event.duration()) });
		if (event.rebuilt() == 0) {
			return restored + Messages.Notice_nothingRebuilt;
		}
		return restored + NLS.bind(event.rebuilt() == 1 ? Messages.Notice_rebuiltOne : Messages.Notice_rebuilt,
				Formats.count(event.rebuilt()));
	}

	/** @return the branch, else the short commit id, else the repository's folder name */
	public static String nameOf(StateEvent event) {
		if (event.branch() != null && !event.branch().isEmpty()) {
			return event.branch();
		}
		if (event.commitId() != null) {
			return Formats.shortId(event.commitId());
		}
		return event.gitDir() == null ? Messages.Format_none : GitInfo.workTreeOf(event.gitDir()).getName();
	}

	private static String reason(StateEvent event) {
		if (event.message() != null && !event.message().isBlank()) {
			return event.message();
		}
		if (event.status() != null && event.status().getMessage() != null) {
			return event.status().getMessage();
		}
		return Messages.Notice_noReason;
	}
}
