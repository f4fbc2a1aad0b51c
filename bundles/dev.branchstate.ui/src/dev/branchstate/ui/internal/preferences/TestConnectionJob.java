package dev.branchstate.ui.internal.preferences;

import java.util.function.Consumer;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.osgi.util.NLS;

import dev.branchstate.core.RemoteStoreCheck;
import dev.branchstate.core.RemoteStoreSettings;
import dev.branchstate.ui.internal.Formats;
import dev.branchstate.ui.internal.Messages;
import dev.branchstate.ui.internal.StateServices;

/**
 * The Remote Store page's Test connection: one listing of the store and the signature check of its newest manifest,
 * in a job (the page stays responsive), its outcome handed to the page as one plain sentence. A failure is the
 * page's to show, not the Error Log's: the job returns OK either way.
 */
final class TestConnectionJob extends Job {

	private final RemoteStoreSettings settings;
	private final Consumer<Outcome> whenDone;

	/** The sentence to show and whether it reports a problem. */
	record Outcome(String text, boolean problem) {
	}

	TestConnectionJob(RemoteStoreSettings settings, Consumer<Outcome> whenDone) {
		super(Messages.PrefRemote_testJob);
		this.settings = settings;
		this.whenDone = whenDone;
		setUser(false);
	}

	@Override
	protected IStatus run(IProgressMonitor monitor) {
		Outcome outcome;
		try {
			outcome = describe(StateServices.require().checkRemoteStore(settings, monitor));
		} catch (CoreException e) {
			outcome = new Outcome(NLS.bind(Messages.PrefRemote_testFailed, e.getStatus().getMessage()), true);
		} catch (RuntimeException e) {
			outcome = new Outcome(NLS.bind(Messages.PrefRemote_testFailed, String.valueOf(e.getMessage())), true);
		}
		whenDone.accept(outcome);
		return Status.OK_STATUS;
	}

	/** "Connected: 12 states listed; newest manifest signed by the pinned key 1a2b… (creator ci) — valid." */
	static Outcome describe(RemoteStoreCheck check) {
		String listed = NLS.bind(check.states() == 1 ? Messages.PrefRemote_testListedOne : Messages.PrefRemote_testListed,
				Formats.count(check.states()));
		return switch (check.signature()) {
			case VALID -> new Outcome(NLS.bind(Messages.PrefRemote_testValid, new Object[] { listed,
					check.keyFingerprint().orElse(""), check.creator().orElse("") }), false); //$NON-NLS-1$ //$NON-NLS-2$
			case INVALID -> new Outcome(NLS.bind(Messages.PrefRemote_testInvalid, listed,
					check.problem().orElse("")), true); //$NON-NLS-1$
			case NO_KEY_PINNED -> new Outcome(NLS.bind(Messages.PrefRemote_testNoKey, listed), true);
			case NO_MANIFEST -> new Outcome(Messages.PrefRemote_testEmpty, false);
		};
	}
}
