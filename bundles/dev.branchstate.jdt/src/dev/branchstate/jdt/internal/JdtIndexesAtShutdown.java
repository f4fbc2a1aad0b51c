package dev.branchstate.jdt.internal;

import java.util.concurrent.atomic.AtomicBoolean;

import org.eclipse.core.resources.ISaveContext;
import org.eclipse.core.resources.ISaveParticipant;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.ILog;

/**
 * At the workspace's full save (the end of a session), has JDT write the search indexes it changed. JDT writes them
 * only once its indexer has been idle for a second and is woken again; an index it changed in a session that ended
 * sooner (a headless command, an IDE closed right after a switch) is not listed as saved, and the next session's
 * first use of it makes JDT index the whole project again. The state Branchstate saves of that project then holds no
 * index, and every restore of it leaves JDT to index the project. JDT itself leaves unsaved the index of a project it
 * still has work queued for.
 */
final class JdtIndexesAtShutdown implements ISaveParticipant {

	private static final String BUNDLE = "dev.branchstate.jdt"; //$NON-NLS-1$
	private static final AtomicBoolean REGISTERED = new AtomicBoolean();

	private JdtIndexesAtShutdown() {
	}

	/** Registers the participant, once per session. */
	static void register() {
		if (REGISTERED.compareAndSet(false, true)) {
			try {
				ResourcesPlugin.getWorkspace().addSaveParticipant(BUNDLE, new JdtIndexesAtShutdown());
			} catch (CoreException | IllegalStateException e) {
				ILog.of(JdtIndexesAtShutdown.class).warn(e.getMessage(), e);
			}
		}
	}

	@Override
	public void saving(ISaveContext context) {
		if (context.getKind() == ISaveContext.FULL_SAVE) {
			try {
				JdtIndexes.saveChanged();
			} catch (LinkageError | RuntimeException e) { // another JDT release: JDT indexes as it would have
				ILog.of(JdtIndexesAtShutdown.class).warn(e.getMessage(), e);
			}
		}
	}

	@Override
	public void prepareToSave(ISaveContext context) {
		// nothing to prepare
	}

	@Override
	public void doneSaving(ISaveContext context) {
		// nothing to clean up
	}

	@Override
	public void rollback(ISaveContext context) {
		// the indexes written stay valid
	}
}
