package dev.branchstate.ui.internal;

import org.eclipse.osgi.util.NLS;
import org.eclipse.ui.IStartup;

import dev.branchstate.core.StateEvent;

/**
 * Tells the user what the automatic switch did, without getting in the way: a popup after a restore (what, how
 * many files, how long, how many changed files the builders redo) or after a failure (why Eclipse rebuilds instead),
 * the status line for saves and skips. Registered at workbench start-up ({@code org.eclipse.ui.startup}); the
 * state service calls it on its worker thread and {@link Notices} hands over to the display thread.
 * <p>
 * Failures are logged to the Error Log by the core service that met them; this class only tells the user.
 */
public final class StateEventNotifier implements IStartup, StateServices.Subscriber {

	@Override
	public void earlyStartup() {
		StateServices.subscribe(this);
	}

	@Override
	public void stateChanged(StateEvent event) {
		String name = nameOf(event);
		switch (event.kind()) {
			case RESTORED -> Notices.popup(Messages.Notice_restoredTitle, restoredText(event, name), false);
			case FAILED -> Notices.popup(Messages.Notice_failedTitle,
					NLS.bind(Messages.Notice_failed, name, reason(event)), true);
			case SKIPPED -> Notices.status(NLS.bind(Messages.Notice_skipped, name, reason(event)), false);
			case SAVED -> Notices.status(NLS.bind(Messages.Notice_saved,
					new Object[] { name, Formats.count(event.files()), Formats.duration(event.duration()) }), false);
		}
	}

	/** "Restored 'feature-x': 28,114 files in 1.2 s; 14 changed files rebuilt" */
	public static String restoredText(StateEvent event, String name) {
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
