package dev.branchstate.core.internal.switching;

import java.io.File;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

import org.eclipse.core.resources.IProject;
import org.eclipse.jgit.lib.Repository;

import dev.branchstate.core.internal.service.ProjectPaths;

/**
 * A Git repository that holds projects of the workspace, with what the switch protocol knows about its derived data
 * ({@link #disk}). That is read and written under {@link #lock} (by the switch job, the PRE_BUILD check, the build
 * listener and the save participant); {@link #projects} is replaced as a whole by the tracking.
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
	/** Saves the state of the derived data on disk ahead of a switch, and completes a partial one. */
	final SaveAheadJob saveAhead;

	volatile List<IProject> projects;
	/** What the derived data on disk is; its owner. */
	final DiskState disk = new DiskState();
	boolean closed;
	/** While a switch is pending: tells the contributors that held their background work that it is handled. */
	Runnable switchEnds;

	TrackedRepository(File gitDir, String key, String canonicalKey, Repository git, List<IProject> projects,
			SwitchManager manager, SwitchProtocol protocol, boolean saveAhead) {
		this.gitDir = gitDir;
		this.key = key;
		this.canonicalKey = canonicalKey;
		this.git = git;
		this.projects = projects;
		this.job = new SwitchJob(this, manager);
		this.saveAhead = new SaveAheadJob(this, protocol, manager.switchRule(), saveAhead);
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

	/**
	 * @return the repository's projects whose description is on disk: not those whose folder a checkout to a branch
	 *         without them deleted ({@link ProjectPaths#descriptionOnDisk})
	 */
	List<IProject> projectsOnDisk() {
		return projects.stream().filter(ProjectPaths::descriptionOnDisk).toList();
	}
}
