package dev.branchstate.javaindex.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IResourceChangeEvent;
import org.eclipse.core.resources.IResourceChangeListener;
import org.eclipse.core.resources.IResourceDelta;
import org.eclipse.core.resources.IResourceProxy;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.Platform;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.emf.ecore.EObject;
import org.osgi.framework.FrameworkUtil;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import dev.branchstate.core.IRestoreContext;
import dev.branchstate.core.ISaveContext;
import dev.branchstate.javaindex.Declaration;
import dev.branchstate.javaindex.IJavaIndex;
import dev.branchstate.javaindex.IndexUpdate;
import dev.branchstate.javaindex.IndexUpdate.Cause;

/**
 * The Java index service. A resource change listener records which {@code *.java} files of which projects changed;
 * a system job ({@link #FAMILY}) indexes them in the background: reads each file, hashes it, and parses it (in
 * parallel) only when the hash is new. Nothing is added to a project's description and no project file is written:
 * the index lives under this bundle's state location, one directory per project.
 * <p>
 * System property {@value #SHARDS}: number of store shards per project, {@code 0} (default) for one EMF resource
 * per compilation unit. System property {@value #DUMP_AT_EXIT}: a folder where the service writes, when it closes
 * (the IDE exits normally), {@link #dump(IProject)} of every project it indexed once its work is done, one
 * {@code <project>.dump} file each (for support and the soak, which compares it with a clean workspace's); the
 * headless application's {@code dump <folder>} command writes the same at once ({@link IndexDumpOnCommand}).
 */
@Component(service = { IJavaIndex.class, JavaIndexService.class }, immediate = true)
public final class JavaIndexService implements IJavaIndex, IResourceChangeListener {

	/** Job family of the indexing job. */
	public static final Object FAMILY = JavaIndexService.class.getName();
	public static final String SHARDS = "dev.branchstate.javaindex.shards"; //$NON-NLS-1$
	public static final String DUMP_AT_EXIT = "dev.branchstate.javaindex.dumpAtExit"; //$NON-NLS-1$
	/** How long {@link #close()} waits for pending work before it writes the dumps of {@value #DUMP_AT_EXIT}. */
	private static final Duration DUMP_WAIT = Duration.ofMinutes(2);
	private static final String JAVA = "java"; //$NON-NLS-1$
	/** Entries of a state: the store under {@value #STORE}, and the work not yet in the store. */
	private static final String STORE = "store/"; //$NON-NLS-1$
	private static final String UNINDEXED = "unindexed"; //$NON-NLS-1$
	private static final String ALL = "*all*\n"; //$NON-NLS-1$

	private final IWorkspace workspace;
	private final Path root;
	private final ProjectIndex.Layout layout;
	private final Map<String, ProjectIndex> indexes = new ConcurrentHashMap<>();
	/** Project name → what its last restore vouches for (see {@link RestoredBaseline}). */
	private final Map<String, RestoredBaseline> baselines = new ConcurrentHashMap<>();
	/** project name → work not started yet; guards itself and {@link #running} */
	private final Map<String, Pending> pending = new LinkedHashMap<>();
	/** project name → work the job has taken and not finished */
	private final Map<String, Pending> running = new HashMap<>();
	private final List<Consumer<IndexUpdate>> listeners = new CopyOnWriteArrayList<>();
	private final ForkJoinPool pool;
	private final Job job;
	private volatile boolean closed;

	private static final class Pending {
		boolean full;
		final Set<String> paths = new HashSet<>();
	}

	@Activate
	public JavaIndexService(@Reference IWorkspace workspace) {
		this(workspace,
				Platform.getStateLocation(FrameworkUtil.getBundle(JavaIndexService.class)).append("index").toPath(), //$NON-NLS-1$
				Integer.getInteger(SHARDS, 0).intValue());
	}

	public JavaIndexService(IWorkspace workspace, Path root, int shards) {
		this.workspace = workspace;
		this.root = root;
		this.layout = new ProjectIndex.Layout(shards);
		this.pool = new ForkJoinPool(Math.max(1, Runtime.getRuntime().availableProcessors()));
		this.job = new Job(Messages.Index_jobName) {
			@Override
			protected IStatus run(IProgressMonitor monitor) {
				return runPending(monitor);
			}

			@Override
			public boolean belongsTo(Object family) {
				return family == FAMILY;
			}
		};
		job.setSystem(true);
		job.setPriority(Job.DECORATE);
		workspace.addResourceChangeListener(this, IResourceChangeEvent.POST_CHANGE);
		synchronized (pending) {
			for (IProject project : workspace.getRoot().getProjects()) {
				pendingOf(project.getName()).full = true;
			}
		}
		job.schedule();
	}

	@Deactivate
	public void close() {
		String dumps = System.getProperty(DUMP_AT_EXIT);
		if (dumps != null && !dumps.isBlank()) {
			try {
				dumpAll(Path.of(dumps));
			} catch (IOException | RuntimeException e) {
				Log.error(Messages.bind(Messages.Index_dumpFailed, dumps), e);
			}
		}
		closed = true;
		workspace.removeResourceChangeListener(this);
		job.cancel();
		try {
			job.join();
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
		}
		pool.shutdown();
	}

	/**
	 * Writes the dump of every indexed project into a folder, after the pending work is done ({@link #DUMP_WAIT} at
	 * most: a dump of an index still at work starts with a line that says so, and equals no clean index's): at exit
	 * ({@value #DUMP_AT_EXIT}), or when asked ({@link IndexDumpOnCommand}). Each file is written aside and renamed, so
	 * a dump is complete or absent.
	 */
	void dumpAll(Path folder) throws IOException {
		boolean idle = false;
		long deadline = System.nanoTime() + DUMP_WAIT.toNanos();
		try {
			while (!idle && System.nanoTime() < deadline
					&& job.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000), null)) {
				synchronized (pending) {
					idle = pending.isEmpty() && running.isEmpty() && job.getState() == Job.NONE;
				}
			}
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
		}
		Files.createDirectories(folder);
		for (String name : new TreeSet<>(indexes.keySet())) {
			String dump = dump(workspace.getRoot().getProject(name));
			// written aside and renamed: a dump is complete or absent, also when the IDE is killed while it writes
			Path file = folder.resolve(name + ".dump"); //$NON-NLS-1$
			Path written = Files.writeString(folder.resolve('.' + name + ".dump.tmp"), //$NON-NLS-1$
					idle ? dump : "not idle after " + DUMP_WAIT + '\n' + dump); //$NON-NLS-1$
			Files.move(written, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
		}
	}

	private Pending pendingOf(String project) {
		return pending.computeIfAbsent(project, k -> new Pending());
	}

	// ---- change detection ---------------------------------------------------------------------------------------

	@Override
	public void resourceChanged(IResourceChangeEvent event) {
		IResourceDelta delta = event.getDelta();
		if (delta == null || closed) {
			return;
		}
		boolean any = false;
		synchronized (pending) {
			for (IResourceDelta projectDelta : delta.getAffectedChildren()) {
				any |= projectChanged(projectDelta);
			}
		}
		if (any) {
			job.schedule(50);
		}
	}

	private boolean projectChanged(IResourceDelta projectDelta) {
		IProject project = (IProject) projectDelta.getResource();
		int kind = projectDelta.getKind();
		int flags = projectDelta.getFlags();
		if (kind == IResourceDelta.ADDED || kind == IResourceDelta.REMOVED
				|| (flags & (IResourceDelta.OPEN | IResourceDelta.DESCRIPTION)) != 0) {
			pendingOf(project.getName()).full = true;
			return true;
		}
		Set<String> paths = new HashSet<>();
		try {
			projectDelta.accept(d -> {
				IResource resource = d.getResource();
				if (resource.getType() == IResource.FILE) {
					if (JAVA.equals(resource.getFileExtension())
							&& (d.getKind() != IResourceDelta.CHANGED
									|| (d.getFlags() & (IResourceDelta.CONTENT | IResourceDelta.REPLACED)) != 0)) {
						paths.add(resource.getProjectRelativePath().toString());
					}
					return false;
				}
				if (d.getKind() == IResourceDelta.CHANGED && (d.getFlags() & IResourceDelta.DERIVED_CHANGED) != 0) {
					// a folder became (non-)derived: its files enter or leave the index
					collectJava(resource, paths);
					return false;
				}
				return true;
			});
		} catch (CoreException e) {
			pendingOf(project.getName()).full = true;
			return true;
		}
		if (paths.isEmpty()) {
			return false;
		}
		pendingOf(project.getName()).paths.addAll(paths);
		return true;
	}

	private static void collectJava(IResource container, Set<String> paths) {
		try {
			container.accept(proxy -> {
				if (proxy.getType() == IResource.FILE && proxy.getName().endsWith(".java")) { //$NON-NLS-1$
					paths.add(proxy.requestResource().getProjectRelativePath().toString());
				}
				return true;
			}, IResource.NONE);
		} catch (CoreException e) {
			// gone in the meantime: the delta that removed it says so
		}
	}

	// ---- indexing -----------------------------------------------------------------------------------------------

	private IStatus runPending(IProgressMonitor monitor) {
		while (!closed) {
			String name;
			Pending work;
			synchronized (pending) {
				if (pending.isEmpty()) {
					return Status.OK_STATUS;
				}
				name = pending.keySet().iterator().next();
				work = pending.remove(name);
				running.put(name, work);
			}
			if (monitor.isCanceled()) {
				return Status.CANCEL_STATUS;
			}
			IProject project = workspace.getRoot().getProject(name);
			try {
				waitForWorkspaceOperations(project, monitor);
				if (work.full) {
					indexFull(project, monitor);
				} else {
					index(project, work.paths, Cause.DELTA, monitor);
				}
			} catch (OperationCanceledException e) {
				requeue(name, work);
				return Status.CANCEL_STATUS;
			} catch (CoreException | IOException | RuntimeException e) {
				Log.error(Messages.bind(Messages.Index_failed, name, e.getMessage()), e);
			} finally {
				synchronized (pending) {
					running.remove(name);
				}
			}
		}
		return Status.OK_STATUS;
	}

	/**
	 * Waits while a job holds a rule that contains the project, e.g. Branchstate's switch job (workspace root and
	 * build rule) restoring the index that these changes came with: indexing then finds the restored hashes and
	 * parses nothing. The rule is released at once: parsing runs without one and never blocks the workspace.
	 */
	private static void waitForWorkspaceOperations(IProject project, IProgressMonitor monitor) {
		if (Job.getJobManager().currentRule() != null) {
			return;
		}
		Job.getJobManager().beginRule(project, monitor);
		Job.getJobManager().endRule(project);
	}

	private void requeue(String name, Pending work) {
		synchronized (pending) {
			Pending p = pendingOf(name);
			p.full |= work.full;
			p.paths.addAll(work.paths);
		}
	}

	/** Indexes every Java file of the project, or drops the index of a project that is gone or closed. */
	private void indexFull(IProject project, IProgressMonitor monitor) throws CoreException, IOException {
		if (!project.exists()) {
			ProjectIndex gone = indexes.remove(project.getName());
			baselines.remove(project.getName());
			Path dir = gone != null ? gone.directory : directoryOf(project);
			ProjectIndex.deleteTree(dir);
			return;
		}
		if (!project.isOpen()) {
			ProjectIndex closedIndex = indexes.remove(project.getName());
			baselines.remove(project.getName());
			if (closedIndex != null) {
				closedIndex.lock.lock();
				try {
					closedIndex.unload();
				} finally {
					closedIndex.lock.unlock();
				}
			}
			return;
		}
		Set<String> paths = new HashSet<>(javaFiles(project));
		ProjectIndex index = indexOf(project);
		index.lock.lock();
		try {
			paths.addAll(index.unitPaths());
		} finally {
			index.lock.unlock();
		}
		index(project, paths, Cause.FULL, monitor);
	}

	/** @return project-relative paths of the Java files of the project outside derived and team-private folders */
	static List<String> javaFiles(IProject project) throws CoreException {
		List<String> files = new ArrayList<>();
		project.accept((IResourceProxy proxy) -> {
			if (proxy.isDerived() || proxy.isTeamPrivateMember()) {
				return false;
			}
			if (proxy.getType() == IResource.FILE) {
				if (proxy.getName().endsWith(".java")) { //$NON-NLS-1$
					files.add(proxy.requestResource().getProjectRelativePath().toString());
				}
				return false;
			}
			return true;
		}, IResource.NONE);
		return files;
	}

	/** @return the index of an open project, loaded from its store (an unusable store is rebuilt by a full pass) */
	ProjectIndex indexOf(IProject project) throws IOException {
		ProjectIndex index = indexes.computeIfAbsent(project.getName(),
				n -> new ProjectIndex(project, directoryOf(project), layout));
		index.lock.lock();
		try {
			if (!index.loaded() && !index.load()) {
				synchronized (pending) {
					pendingOf(project.getName()).full = true;
				}
				job.schedule();
			}
		} finally {
			index.lock.unlock();
		}
		return index;
	}

	private Path directoryOf(IProject project) {
		return root.resolve(project.getName());
	}

	/**
	 * Brings the index up to date for the given project-relative paths: files that exist (outside derived folders)
	 * are hashed and parsed when the hash is new, the others are removed from the index.
	 */
	IndexUpdate index(IProject project, Collection<String> paths, Cause cause, IProgressMonitor monitor)
			throws IOException {
		long start = System.nanoTime();
		ProjectIndex index = indexOf(project);
		Map<String, String> known = new HashMap<>();
		index.lock.lock();
		try {
			for (String path : paths) {
				known.put(path, index.hash(path));
			}
		} finally {
			index.lock.unlock();
		}
		SubMonitor progress = SubMonitor.convert(monitor, Messages.bind(Messages.Index_indexing, project.getName()),
				2);
		List<String> removed = new ArrayList<>();
		List<Path> candidates = new ArrayList<>();
		List<String> candidatePaths = new ArrayList<>();
		// the work a checkout's refresh queued after a restore: mostly files whose restored hash is right
		RestoredBaseline baseline = cause == Cause.DELTA ? baselines.get(project.getName()) : null;
		int vouched = 0;
		for (String path : paths) {
			IFile file = project.getFile(path);
			IPath location = file.getLocation();
			// on disk, not in the workspace tree: after a restore the checkout may not have been refreshed yet
			if (location != null && path.endsWith(".java") && Files.isRegularFile(location.toPath()) //$NON-NLS-1$
					&& !isDerived(file)) {
				if (baseline != null && known.get(path) != null && baseline.vouchesFor(path, location.toPath())) {
					vouched++;
					continue;
				}
				candidates.add(location.toPath());
				candidatePaths.add(path);
			} else if (known.get(path) != null) {
				removed.add(path);
			}
		}
		Map<String, EObject> parsed = new ConcurrentHashMap<>();
		AtomicInteger unchanged = new AtomicInteger();
		List<String> vanished = new CopyOnWriteArrayList<>();
		try {
			pool.submit(() -> java.util.stream.IntStream.range(0, candidates.size()).parallel().forEach(i -> {
				if (monitor.isCanceled()) {
					throw new OperationCanceledException();
				}
				String path = candidatePaths.get(i);
				byte[] content;
				try {
					content = Files.readAllBytes(candidates.get(i));
				} catch (NoSuchFileException e) {
					if (known.get(path) != null) {
						vanished.add(path);
					}
					return;
				} catch (IOException e) {
					throw new java.io.UncheckedIOException(e);
				}
				String hash = hash(content);
				if (hash.equals(known.get(path))) {
					unchanged.incrementAndGet();
					return;
				}
				parsed.put(path, PARSER.get().parse(path, hash,
						new String(content, StandardCharsets.UTF_8).toCharArray()));
			})).get();
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			throw new OperationCanceledException();
		} catch (ExecutionException e) {
			Throwable cause0 = e.getCause();
			if (cause0 instanceof OperationCanceledException oce) {
				throw oce;
			}
			if (cause0 instanceof java.io.UncheckedIOException u) {
				throw u.getCause();
			}
			throw new IOException(String.valueOf(cause0.getMessage()), cause0);
		}
		progress.worked(1);
		removed.addAll(vanished);
		if (!parsed.isEmpty() || !removed.isEmpty()) {
			index.lock.lock();
			try {
				index.apply(parsed, removed);
			} finally {
				index.lock.unlock();
			}
		}
		progress.worked(1);
		IndexUpdate update = new IndexUpdate(project, cause,
				parsed.keySet().stream().sorted().map(IPath::fromPortableString).toList(),
				removed.stream().sorted().map(IPath::fromPortableString).toList(), unchanged.get() + vouched, vouched,
				Duration.ofNanos(System.nanoTime() - start));
		for (Consumer<IndexUpdate> listener : listeners) {
			try {
				listener.accept(update);
			} catch (RuntimeException e) {
				Log.error(e.getMessage(), e);
			}
		}
		return update;
	}

	private static boolean isDerived(IFile file) {
		for (IResource r = file; r != null && r.getType() != IResource.PROJECT; r = r.getParent()) {
			if (r.isDerived() || r.isTeamPrivateMember()) {
				return true;
			}
		}
		return false;
	}

	private static final ThreadLocal<UnitParser> PARSER = ThreadLocal.withInitial(UnitParser::new);
	private static final ThreadLocal<MessageDigest> DIGEST = ThreadLocal.withInitial(() -> {
		try {
			return MessageDigest.getInstance("SHA-256"); //$NON-NLS-1$
		} catch (NoSuchAlgorithmException e) {
			throw new IllegalStateException(e);
		}
	});

	static String hash(byte[] content) {
		MessageDigest digest = DIGEST.get();
		digest.reset();
		return HexFormat.of().formatHex(digest.digest(content));
	}

	// ---- Branchstate contributor ----------------------------------------------------------------------------------

	/** @return whether the project has an index worth saving */
	boolean hasIndex(IProject project) {
		if (!project.isOpen()) {
			return false;
		}
		ProjectIndex index = indexes.get(project.getName());
		return index != null ? !index.isEmpty() || Files.isDirectory(index.directory)
				: Files.isDirectory(directoryOf(project));
	}

	/**
	 * Adds the project's store to a state being saved: the bytes of every store file, read under the project's lock
	 * (the archive writer reads later; the indexer may rewrite or delete files meanwhile).
	 *
	 * @return the number of store files added
	 */
	int save(ISaveContext context, IProgressMonitor monitor) throws IOException {
		long start = System.nanoTime();
		ProjectIndex index = indexOf(context.project());
		index.lock.lock();
		try {
			List<String> files = index.storeFiles();
			SubMonitor progress = SubMonitor.convert(monitor, files.size() + 1);
			String format = index.readFormat();
			context.addBytes(STORE + ProjectIndex.FORMAT_FILE,
					(format != null ? format : layout.format()).getBytes(StandardCharsets.UTF_8));
			long bytes = 0;
			for (String file : files) {
				progress.split(1);
				byte[] content = Files.readAllBytes(index.directory.resolve(file));
				bytes += content.length;
				context.addBytes(STORE + file, content);
			}
			// the store is up to date except for this work: whoever restores the state must do it
			context.addBytes(UNINDEXED, unindexed(context.project().getName()).getBytes(StandardCharsets.UTF_8));
			lastSave.put(context.project().getName(),
					new SaveStats(files.size(), bytes, Duration.ofNanos(System.nanoTime() - start)));
			return files.size();
		} finally {
			index.lock.unlock();
		}
	}

	/**
	 * @return the work on a project that is not in its store yet (queued or being done), as the {@link #UNINDEXED}
	 *         entry: {@value #ALL} for a full pass, else one project-relative path per line
	 */
	private String unindexed(String project) {
		synchronized (pending) {
			Pending queued = pending.get(project);
			Pending taken = running.get(project);
			if ((queued != null && queued.full) || (taken != null && taken.full)) {
				return ALL;
			}
			Set<String> paths = new TreeSet<>();
			if (queued != null) {
				paths.addAll(queued.paths);
			}
			if (taken != null) {
				paths.addAll(taken.paths);
			}
			StringBuilder b = new StringBuilder();
			paths.forEach(p -> b.append(p).append('\n'));
			return b.toString();
		}
	}

	/**
	 * What the last restore did for a project (for tests and the benchmark): store files written, deleted and left
	 * untouched by the differential extraction, the pass over the changed paths, and the wall time of it all.
	 */
	public record RestoreStats(int filesWritten, int filesDeleted, long filesUnchanged, IndexUpdate update,
			Duration duration) {
	}

	/** What the last save did for a project: store files and bytes handed to the state, and the wall time. */
	public record SaveStats(int files, long bytes, Duration duration) {
	}

	private final Map<String, RestoreStats> lastRestore = new ConcurrentHashMap<>();
	private final Map<String, SaveStats> lastSave = new ConcurrentHashMap<>();

	public RestoreStats lastRestore(IProject project) {
		return lastRestore.get(project.getName());
	}

	public SaveStats lastSave(IProject project) {
		return lastSave.get(project.getName());
	}

	/**
	 * Restores the project's store from a state (only files that differ are written; files the state does not have
	 * are deleted), reloads the tables for the files written, then indexes the changed paths handed over and the
	 * work that was queued when the state was saved. On failure the store is wiped and a full pass scheduled: the
	 * index is rebuilt as if never restored. Then the work the checkout's refresh queued reads only the files that
	 * changed since the restore compared the working tree ({@link RestoredBaseline}).
	 */
	void restore(IRestoreContext context, IProgressMonitor monitor) throws CoreException {
		long start = System.nanoTime();
		IProject project = context.project();
		baselines.remove(project.getName()); // until this restore is done
		SubMonitor progress = SubMonitor.convert(monitor, 3);
		ProjectIndex index;
		try {
			index = indexOf(project);
		} catch (IOException e) {
			throw new CoreException(Status.error(Messages.bind(Messages.Index_restoreFailed, project.getName(),
					e.getMessage()), e));
		}
		IRestoreContext.ExtractResult extracted;
		index.lock.lock();
		try {
			extracted = context.extract(STORE, index.directory, true);
			progress.worked(1);
			if (!layout.format().equals(index.readFormat())) {
				throw new IOException(Messages.bind(Messages.Index_otherLayout, index.readFormat()));
			}
			index.reload(extracted.written(), extracted.deleted());
			progress.worked(1);
		} catch (IOException | RuntimeException e) {
			fail(project, index);
			throw new CoreException(Status.error(Messages.bind(Messages.Index_restoreFailed, project.getName(),
					e.getMessage()), e));
		} finally {
			index.lock.unlock();
		}
		Set<String> changed = new HashSet<>();
		for (IPath path : context.changedPaths()) {
			if (JAVA.equals(path.getFileExtension())) {
				changed.add(path.toString());
			}
		}
		try {
			String unindexed = unindexedOf(context);
			if (ALL.equals(unindexed)) {
				synchronized (pending) {
					pendingOf(project.getName()).full = true;
				}
				job.schedule();
			} else {
				unindexed.lines().filter(l -> !l.isBlank()).forEach(changed::add);
			}
		} catch (IOException e) {
			fail(project, index);
			throw new CoreException(Status.error(Messages.bind(Messages.Index_restoreFailed, project.getName(),
					e.getMessage()), e));
		}
		try {
			IndexUpdate update = index(project, changed, Cause.RESTORE, progress.split(1));
			RestoredBaseline baseline = RestoredBaseline.of(context);
			if (baseline != null) {
				baselines.put(project.getName(), baseline);
			}
			lastRestore.put(project.getName(), new RestoreStats(extracted.written().size(),
					extracted.deleted().size(), extracted.unchanged(), update,
					Duration.ofNanos(System.nanoTime() - start)));
		} catch (OperationCanceledException e) {
			fail(project, index);
			throw e;
		} catch (IOException | RuntimeException e) {
			fail(project, index);
			throw new CoreException(Status.error(Messages.bind(Messages.Index_restoreFailed, project.getName(),
					e.getMessage()), e));
		}
	}

	private static String unindexedOf(IRestoreContext context) throws IOException {
		try (InputStream in = context.open(UNINDEXED)) {
			return new String(in.readNBytes(64 << 20), StandardCharsets.UTF_8);
		}
	}

	private void fail(IProject project, ProjectIndex index) {
		baselines.remove(project.getName());
		index.lock.lock();
		try {
			index.wipe();
		} catch (IOException e) {
			Log.error(e.getMessage(), e);
		} finally {
			index.lock.unlock();
		}
		synchronized (pending) {
			pendingOf(project.getName()).full = true;
		}
		job.schedule();
	}

	// ---- queries -------------------------------------------------------------------------------------------------

	@Override
	public List<Declaration> declarations(String simpleName) {
		List<Declaration> all = new ArrayList<>();
		for (ProjectIndex index : indexes.values()) {
			all.addAll(query(index, i -> i.declarations(simpleName)));
		}
		return all.stream().sorted().toList();
	}

	@Override
	public List<Declaration> declarations(IProject project, String simpleName) {
		ProjectIndex index = indexes.get(project.getName());
		return index == null ? List.of() : query(index, i -> i.declarations(simpleName)).stream().sorted().toList();
	}

	@Override
	public List<IPath> filesReferencing(String simpleName) {
		List<IPath> all = new ArrayList<>();
		for (ProjectIndex index : indexes.values()) {
			all.addAll(query(index, i -> i.referencing(simpleName)));
		}
		return all.stream().sorted((a, b) -> a.toString().compareTo(b.toString())).toList();
	}

	@Override
	public List<IPath> filesReferencing(IProject project, String simpleName) {
		ProjectIndex index = indexes.get(project.getName());
		return index == null ? List.of()
				: query(index, i -> i.referencing(simpleName)).stream()
						.sorted((a, b) -> a.toString().compareTo(b.toString())).toList();
	}

	@Override
	public List<IPath> files(IProject project) {
		ProjectIndex index = indexes.get(project.getName());
		return index == null ? List.of()
				: query(index, i -> List.copyOf(i.unitPaths())).stream().sorted().map(IPath::fromPortableString)
						.toList();
	}

	@Override
	public String contentHash(IProject project, IPath path) {
		ProjectIndex index = indexes.get(project.getName());
		return index == null ? null : query(index, i -> i.hash(path.toString()));
	}

	private static <T> T query(ProjectIndex index, java.util.function.Function<ProjectIndex, T> f) {
		index.lock.lock();
		try {
			return f.apply(index);
		} finally {
			index.lock.unlock();
		}
	}

	@Override
	public void join(IProgressMonitor monitor) throws InterruptedException {
		Job.getJobManager().join(FAMILY, monitor);
	}

	@Override
	public void addListener(Consumer<IndexUpdate> listener) {
		listeners.add(listener);
	}

	@Override
	public void removeListener(Consumer<IndexUpdate> listener) {
		listeners.remove(listener);
	}

	/**
	 * @return everything the index knows of a project, one line per compilation unit (path, hash, declarations,
	 *         references), sorted: two indexes answer every query alike when their dumps are equal
	 */
	public String dump(IProject project) {
		ProjectIndex index = indexes.get(project.getName());
		return index == null ? "" : query(index, ProjectIndex::dump); //$NON-NLS-1$
	}

	/** @return the store directory of a project (for tests and the benchmark) */
	public Path storeOf(IProject project) {
		return directoryOf(project);
	}
}
