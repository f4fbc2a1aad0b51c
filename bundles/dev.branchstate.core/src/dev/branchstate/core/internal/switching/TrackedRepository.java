package dev.branchstate.core.internal.switching;

import java.io.File;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

import org.eclipse.core.resources.IProject;
import org.eclipse.jgit.lib.Repository;

/**
 * A Git repository that holds projects of the workspace, with what the switch protocol knows about it. Fields are
 * read and written under {@link #lock} (by the switch job, the PRE_BUILD check and the save participant), except
 * {@link #projects}, which the tracking replaces as a whole.
 */
final class TrackedRepository implements AutoCloseable {

	/** The Git directory as the state service names it. */
	final File gitDir;
	/** {@link SwitchManager#key(File)} of {@link #gitDir}. */
	final String key;
	/** {@link SwitchManager#key(File)} of the canonical {@link #gitDir} (the state service may name it so). */
	final String canonicalKey;
	final Repository git;
	final ReentrantLock lock = new ReentrantLock();
	final SwitchJob job;

	volatile List<IProject> projects;

	/** The last HEAD the protocol handled. */
	Head handled;
	/** The HEAD the derived data on disk reflects; {@code null} when unknown (then it is not saved). */
	Head derived;
	/** Whether a stored state of {@link #derived} is identical to the derived data (saved or restored, no build since). */
	boolean identical;
	boolean closed;
	/**
	 * HEAD moved while Eclipse was closed: the derived data on disk may have changed too (a build from the command
	 * line), so it is not saved as the state being left.
	 */
	boolean movedWhileClosed;
	/**
	 * The commit of the last state saved by anyone (the Save State command included) since the last build, as
	 * the state service reported it; {@code null} when a build came after it.
	 */
	volatile String savedAt;
	/** The HEAD for which the state being left was already saved ahead of a refresh (see SwitchProtocol#saveAhead). */
	Head savedAheadFor;

	TrackedRepository(File gitDir, String key, String canonicalKey, Repository git, List<IProject> projects,
			SwitchManager manager) {
		this.gitDir = gitDir;
		this.key = key;
		this.canonicalKey = canonicalKey;
		this.git = git;
		this.projects = projects;
		this.job = new SwitchJob(this, manager);
	}

	/** @return the name shown to the user: the work tree's folder name, or the Git directory */
	String displayName() {
		File workTree = git.isBare() ? null : git.getWorkTree();
		return workTree != null ? workTree.getName() : gitDir.getPath();
	}

	@Override
	public void close() {
		lock.lock();
		try {
			if (!closed) {
				closed = true;
				git.close();
			}
		} finally {
			lock.unlock();
		}
	}
}
