package dev.branchstate.jdt.internal;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.ILog;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.Status;
import org.eclipse.jdt.core.IJavaProject;
import org.eclipse.jdt.core.JavaCore;
import org.eclipse.jdt.internal.compiler.SourceElementParser;
import org.eclipse.jdt.internal.compiler.util.SimpleLookupTable;
import org.eclipse.jdt.internal.core.JavaModelManager;
import org.eclipse.jdt.internal.core.JavaModelManager.PerProjectInfo;
import org.eclipse.jdt.internal.core.index.Index;
import org.eclipse.jdt.internal.core.index.IndexLocation;
import org.eclipse.jdt.internal.core.index.IndexQualifier;
import org.eclipse.jdt.internal.core.index.MetaIndex;
import org.eclipse.jdt.internal.core.search.indexing.IndexManager;
import org.eclipse.jdt.internal.core.search.indexing.ReadWriteMonitor;
import org.eclipse.jdt.internal.core.search.processing.IJob;
import org.eclipse.jdt.internal.core.search.processing.JobManager;
import org.eclipse.osgi.util.NLS;

/**
 * The one class that reaches JDT's internal search index: the source index of a Java project, one file that JDT's
 * index manager keeps under its own name ({@code <crc32 of the project path>.index}), written on save as JDT writes
 * it and, on restore, put back in its place and loaded by the index manager as a saved index, after which only the
 * files that differ from the restored commit are queued for indexing. Any linkage problem (another JDT release)
 * becomes a {@link CoreException} naming the project; a restore that fails after it touched JDT's queue or the index
 * file leaves JDT to rebuild the project's index from scratch.
 */
final class JdtIndexes {

	/** How long a restore waits for an index job that was running when it began (then JDT re-indexes the project). */
	private static final long RUNNING_JOB_WAIT_NANOS = 30_000_000_000L;

	private JdtIndexes() {
	}

	/**
	 * Has the index manager write the project's index and reads its file while nobody may write to it, provided JDT's
	 * indexer has no job queued for the project. Such a job is not waited for: the save of a branch runs once the
	 * checkout has changed the files, and a job reads its file when it runs, so it would put the content of the
	 * branch entered into the index of the branch left.
	 *
	 * @return the bytes of the project's source index, or {@code null} when JDT has no index of it (yet)
	 * @throws CoreException (INFO) when the indexer has a job queued for the project
	 */
	static byte[] write(IProject project) throws CoreException {
		try {
			IndexManager manager = JavaModelManager.getIndexManager();
			Index index = manager.getIndex(project.getFullPath(), true, false);
			ReadWriteMonitor lock = index == null ? null : index.monitor;
			if (lock == null) {
				return null; // not indexed yet (the request to index it is queued), or removed meanwhile
			}
			lock.enterWrite(); // a job that runs holds it: none can change the index until it is read
			try {
				if (hasJobsFor(manager, project)) {
					throw new CoreException(Status.info(NLS.bind(Messages.JdtIndex_busy, project.getName())));
				}
				manager.saveIndex(index);
				File file = index.getIndexFile();
				if (index.monitor == null || index.hasChanged() || file == null || !file.isFile()) {
					return null;
				}
				return Files.readAllBytes(file.toPath());
			} finally {
				lock.exitWrite();
			}
		} catch (IOException | ReflectiveOperationException | LinkageError | RuntimeException e) {
			throw unavailable(project, e);
		}
	}

	/**
	 * Has JDT write every index it changed, as it does after its indexer has been idle for a second; JDT leaves the
	 * index of a project it still has jobs queued for in its state, to be updated or rebuilt next session.
	 */
	static void saveChanged() {
		JavaModelManager.getIndexManager().saveIndexes();
	}

	/**
	 * @return whether JDT's indexer has a job of the project queued or running (its queue's private list, read under
	 *         the lock that guards it; the running job stays first in it until it is done)
	 */
	private static boolean hasJobsFor(IndexManager manager, IProject project) throws ReflectiveOperationException {
		synchronized (manager) {
			for (IJob job : awaitingJobs(manager)) {
				if (job.belongsTo(project.getName())) {
					return true;
				}
			}
		}
		return false;
	}

	/**
	 * Makes {@code bytes} the project's source index: discards the index jobs queued for the project (those of the
	 * refresh that handed it the checkout), replaces the index file, has the index manager load it as a saved index
	 * and refreshes JDT's meta-index entry and secondary-types cache of the project, then queues the indexing of
	 * {@code toIndex} and the removal of {@code toRemove} from the index. On any failure the project's index is
	 * removed and JDT rebuilds it from scratch, and a {@link CoreException} says why.
	 *
	 * @param toIndex files of the project's source folders whose content differs from the restored commit
	 * @param toRemove files of the project's source folders that the restored commit has and the working tree lacks
	 * @return the jobs queued for {@code toIndex} and {@code toRemove} (a set by identity), as long as JDT's indexer is
	 *         held, see {@link #discardSourceJobsBut}
	 */
	static Set<IJob> install(IProject project, byte[] bytes, Collection<IFile> toIndex, Collection<IFile> toRemove)
			throws CoreException {
		try {
			IndexManager manager = JavaModelManager.getIndexManager();
			IPath container = project.getFullPath();
			manager.disable(); // no job starts until the index is in place (the held ones run after)
			try {
				install(manager, project, container, bytes, toIndex, toRemove);
				return queuedFor(manager, project);
			} finally {
				manager.enable();
			}
		} catch (IOException | ReflectiveOperationException | InterruptedException | LinkageError
				| RuntimeException e) {
			reindex(project, e);
			if (e instanceof InterruptedException) {
				Thread.currentThread().interrupt();
			}
			if (e instanceof OperationCanceledException canceled) {
				throw canceled;
			}
			throw unavailable(project, e);
		}
	}

	private static void install(IndexManager manager, IProject project, IPath container, byte[] bytes,
			Collection<IFile> toIndex, Collection<IFile> toRemove)
			throws IOException, ReflectiveOperationException, InterruptedException {
		IndexLocation location = manager.computeIndexLocation(container);
		discardQueued(manager, project);
		File file = location.getIndexFile();
		if (file == null) {
			throw new IOException("no index file for " + container); //$NON-NLS-1$
		}
		Path target = file.toPath();
		Path temporary = target.resolveSibling(target.getFileName() + ".branchstate"); //$NON-NLS-1$
		Files.write(temporary, bytes);
		if (!replaceKnown(manager, location, temporary, target)) {
			manager.removeIndex(container); // the cached index, its file, its state and its meta-index entry
			Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
			// REBUILDING without a job: the next getIndex reads the file rather than queue a rebuild
			manager.aboutToUpdateIndex(container, IndexManager.REBUILDING_STATE);
		}
		Index index = markSaved(manager, container); // no job is pending for it: SAVED
		if (index == null) {
			throw new IOException("JDT did not load the restored index of " + container); //$NON-NLS-1$
		}
		updateMetaIndex(manager, index);
		clearSecondaryTypes(project);
		IJavaProject javaProject = JavaCore.create(project);
		SourceElementParser parser = toIndex.isEmpty() ? null : manager.getSourceElementParser(javaProject, null);
		for (IFile changed : toIndex) {
			manager.addSource(changed, container, parser);
		}
		for (IFile gone : toRemove) {
			manager.remove(gone.getProjectRelativePath().toString(), container);
		}
	}

	/**
	 * Takes the project's jobs out of JDT's queue (those of the refresh that handed it the checkout) without
	 * cancelling them as {@link IndexManager#discardJobs} does: a cancelled job marks the project's index as unknown,
	 * to be rebuilt, and has JDT write its file of index names in a job. The indexer is disabled: a job that was
	 * already running is waited for first, since it would save the index it holds over the restored one.
	 */
	private static void discardQueued(IndexManager manager, IProject project)
			throws ReflectiveOperationException, InterruptedException, IOException {
		Field executing = JobManager.class.getDeclaredField("executing"); //$NON-NLS-1$
		executing.setAccessible(true);
		long deadline = System.nanoTime() + RUNNING_JOB_WAIT_NANOS;
		synchronized (manager) {
			while (executing.getBoolean(manager)) {
				if (System.nanoTime() > deadline) {
					throw new IOException("JDT's indexer is still running a job: " + manager.currentJobForced()); //$NON-NLS-1$
				}
				manager.wait(20);
			}
			List<IJob> queue = awaitingJobs(manager);
			if (queue.removeIf(job -> job.belongsTo(project.getName())) && queue.isEmpty()) {
				manager.notifyAll(); // as JDT does for those waiting until its queue is empty
			}
		}
	}

	/** @return the jobs of the project in JDT's queue, a set by identity */
	private static Set<IJob> queuedFor(IndexManager manager, IProject project) throws ReflectiveOperationException {
		Set<IJob> queued = Collections.newSetFromMap(new IdentityHashMap<>());
		synchronized (manager) {
			for (IJob job : awaitingJobs(manager)) {
				if (job.belongsTo(project.getName())) {
					queued.add(job);
				}
			}
		}
		return queued;
	}

	/**
	 * Takes out of JDT's queue the project's requests to index a source file, but {@code kept}. Called when JDT's
	 * indexer has been held since {@link #install} returned {@code kept} and nothing but the restore changed the
	 * project since (the switch held the workspace): the other requests are JDT's answer to the restore's own changes,
	 * which the restored index already holds, mostly the rule that indexes again every source whose JDT error marker
	 * was removed (a restore replaces the markers of the branch left by the state's). Requests to remove a file are
	 * kept. A queued request marked the index "updating"; once none is left, the index is marked saved again, as
	 * {@link #install} left it (an index still "updating" at a session's end is indexed from scratch in the next).
	 * Nothing is done, and the requests run, when JDT's queue cannot be read.
	 *
	 * @return how many requests were taken out
	 */
	static int discardSourceJobsBut(IProject project, Set<IJob> kept) {
		IndexManager manager = JavaModelManager.getIndexManager();
		int discarded;
		try {
			synchronized (manager) {
				List<IJob> queue = awaitingJobs(manager);
				int before = queue.size();
				queue.removeIf(job -> !kept.contains(job) && job.belongsTo(project.getName()) && indexesASource(job));
				discarded = before - queue.size();
				if (discarded > 0 && queue.isEmpty()) {
					manager.notifyAll(); // as JDT does for those waiting until its queue is empty
				}
			}
			if (discarded > 0) {
				markSaved(manager, project.getFullPath());
			}
			return discarded;
		} catch (ReflectiveOperationException | IOException | LinkageError | RuntimeException e) {
			ILog.of(JdtIndexes.class).warn("JDT's index queue of " + project.getName() + " was left as it is", e); //$NON-NLS-1$
			return 0;
		}
	}

	/**
	 * Has JDT mark the container's index saved, unless a request for it is still queued: {@link IndexManager#saveIndex}
	 * does not write an index that did not change.
	 *
	 * @return the index, or {@code null} when JDT has not loaded it (its state is then JDT's own)
	 */
	private static Index markSaved(IndexManager manager, IPath container) throws IOException {
		Index index = manager.getIndex(container, true, false);
		ReadWriteMonitor lock = index == null ? null : index.monitor;
		if (lock == null) {
			return null;
		}
		lock.enterWrite();
		try {
			manager.saveIndex(index);
		} finally {
			lock.exitWrite();
		}
		return index;
	}

	/** @return whether the job is one of {@link IndexManager#addSource}'s (an anonymous class of its own) */
	private static boolean indexesASource(IJob job) {
		Method declaredIn = job.getClass().getEnclosingMethod();
		return declaredIn != null && declaredIn.getDeclaringClass() == IndexManager.class
				&& declaredIn.getName().equals("scheduleDocumentIndexing"); //$NON-NLS-1$
	}

	@SuppressWarnings("unchecked")
	private static List<IJob> awaitingJobs(IndexManager manager) throws ReflectiveOperationException {
		return (List<IJob>) field(JobManager.class, "awaitingJobs").get(manager); //$NON-NLS-1$
	}

	/**
	 * When JDT knows the project's index and its file (every switch but a session's first), replaces the file under
	 * the same state: SAVED, or UPDATING once the refresh queued its requests. JDT's states, and the file of index
	 * names it writes in a job at each change of them, stay as they are until the restored index is saved. The cached
	 * index is dropped as {@link IndexManager#removeIndex} drops it.
	 *
	 * @return whether the file was replaced; if not, nothing was changed
	 */
	private static boolean replaceKnown(IndexManager manager, IndexLocation location, Path temporary, Path target)
			throws IOException, ReflectiveOperationException {
		synchronized (manager) {
			Method states = IndexManager.class.getDeclaredMethod("getIndexStates"); //$NON-NLS-1$
			states.setAccessible(true);
			Object state = ((SimpleLookupTable) states.invoke(manager)).get(location);
			if (!(IndexManager.SAVED_STATE.equals(state) || IndexManager.UPDATING_STATE.equals(state))
					|| !Files.isRegularFile(target)) {
				return false;
			}
			Index cached = manager.getIndex(location);
			if (cached != null) {
				cached.monitor = null; // whoever still holds it sees it gone
				((SimpleLookupTable) field(IndexManager.class, "indexes").get(manager)).removeKey(location); //$NON-NLS-1$
				((Set<?>) field(IndexManager.class, "metaIndexUpdates").get(manager)).remove(cached); //$NON-NLS-1$
			}
			Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
			return true;
		}
	}

	private static Field field(Class<?> type, String name) throws NoSuchFieldException {
		Field field = type.getDeclaredField(name);
		field.setAccessible(true);
		return field;
	}

	/**
	 * The meta-index maps each index file to the qualified names it references, so that a search opens only the
	 * indexes that can match; the restored file's entry is rewritten as JDT does after it indexed a file.
	 */
	private static void updateMetaIndex(IndexManager manager, Index index) throws IOException {
		Optional<MetaIndex> meta = manager.getMetaIndex();
		File file = index.getIndexFile();
		if (meta.isEmpty() || file == null) {
			return; // the meta-index is disabled; removeIndex left the file out of it, so it is always searched
		}
		ReadWriteMonitor lock = meta.get().getMonitor();
		if (lock == null) {
			return;
		}
		var qualifications = index.getMetaIndexQualifications();
		lock.enterWrite();
		try {
			meta.get().remove(file.getName());
			for (IndexQualifier qualifier : qualifications) {
				meta.get().addIndexEntry(qualifier.getCategory(), qualifier.getKey(), file.getName());
			}
		} finally {
			lock.exitWrite();
		}
	}

	/**
	 * The refresh took the secondary types of the files the checkout changed out of JDT's cache for the project,
	 * expecting their indexing to put them back; the discarded jobs will not: the cache is cleared (JDT fills it
	 * again from the index when it next needs it).
	 */
	private static void clearSecondaryTypes(IProject project) throws ReflectiveOperationException {
		PerProjectInfo info = JavaModelManager.getJavaModelManager().getPerProjectInfo(project, false);
		if (info == null) {
			return;
		}
		Field field = PerProjectInfo.class.getDeclaredField("secondaryTypes"); //$NON-NLS-1$
		field.setAccessible(true);
		Object secondaryTypes = field.get(info);
		Method clear = secondaryTypes.getClass().getDeclaredMethod("clearAllCaches"); //$NON-NLS-1$
		clear.setAccessible(true);
		clear.invoke(secondaryTypes);
	}

	/** Removes the project's index (file and cache) and has JDT index the whole project again. */
	static void reindex(IProject project, Throwable failure) {
		try {
			IndexManager manager = JavaModelManager.getIndexManager();
			manager.discardJobs(project.getName());
			manager.removeIndex(project.getFullPath());
			manager.indexAll(project);
		} catch (LinkageError | RuntimeException e) {
			failure.addSuppressed(e);
		}
	}

	private static CoreException unavailable(IProject project, Throwable e) {
		return new CoreException(Status.error(NLS.bind(Messages.JdtIndex_unavailable, project.getName(),
				String.valueOf(e.getMessage())), e));
	}
}
