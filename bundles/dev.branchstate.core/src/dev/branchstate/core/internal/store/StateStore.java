package dev.branchstate.core.internal.store;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

import org.eclipse.emf.common.util.EList;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.emf.ecore.resource.Resource;
import org.eclipse.emf.ecore.resource.ResourceSet;
import org.eclipse.emf.ecore.resource.impl.BinaryResourceImpl;
import org.eclipse.emf.ecore.resource.impl.ResourceSetImpl;
import org.eclipse.emf.ecore.util.EcoreUtil;

import dev.branchstate.archive.Archives;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.emf.EmfStates;

/**
 * The state store in one folder: {@code catalog.bin} (the catalog, an EMF model in binary form) and
 * {@code states/<repository key>/<commit>-<time>.bsa} (the state archives).
 * <p>
 * Consistency: an archive is committed (atomically renamed) by the archive engine before its catalog entry is
 * written, its name held by the save meanwhile ({@link Archives#hold}); the catalog is replaced atomically
 * (temporary file, force, atomic move) under an exclusive file lock that serializes writers of all processes, after
 * re-reading the catalog. A crash leaves at worst an archive that no catalog entry names and no live save holds (an
 * orphan, removed by {@link #cleanOrphans}); every entry of the catalog names a complete archive. Reads need no
 * lock: they see the last catalog written, also while a save is running.
 * <p>
 * This class uses only EMF and the JDK (no Eclipse runtime), so that it also runs in a plain JVM.
 */
public final class StateStore {

	public static final String CATALOG_FILE = "catalog.bin"; //$NON-NLS-1$
	static final String LOCK_FILE = "catalog.lock"; //$NON-NLS-1$
	static final String STATES_DIR = "states"; //$NON-NLS-1$
	public static final String ARCHIVE_SUFFIX = ".bsa"; //$NON-NLS-1$
	private static final int CATALOG_VERSION = 1;

	/** In-process lock per store folder: a JVM may hold a {@link FileLock} on a file only once. */
	private static final Map<Path, ReentrantLock> LOCKS = new ConcurrentHashMap<>();

	private final Path directory;
	private final Path catalogFile;
	private volatile Snapshot snapshot = new Snapshot(null, List.of());

	private record Snapshot(Object stamp, List<StateInfo> states) {
	}

	/** What {@link #add} removed besides adding the new state. */
	public record AddResult(StateInfo added, List<StateInfo> replaced, List<StateInfo> retired,
			List<StateInfo> evicted) {
	}

	public StateStore(Path directory) throws IOException {
		this.directory = directory.toAbsolutePath().normalize();
		Files.createDirectories(this.directory.resolve(STATES_DIR));
		this.catalogFile = this.directory.resolve(CATALOG_FILE);
	}

	public Path directory() {
		return directory;
	}

	/** @return the record of the archive files read back sound (see {@link VerifiedFiles}) */
	public VerifiedFiles verifiedFiles() {
		return new VerifiedFiles(directory);
	}

	/** @return the canonical form of a Git directory, as the catalog keys it */
	public static File canonical(File gitDir) {
		try {
			return gitDir.getCanonicalFile();
		} catch (IOException e) {
			return gitDir.getAbsoluteFile().toPath().normalize().toFile();
		}
	}

	/** @return every state, newest first (re-read when another process changed the catalog) */
	public List<StateInfo> states() throws IOException {
		Object stamp = stamp();
		Snapshot current = snapshot;
		if (!Objects.equals(stamp, current.stamp())) {
			current = new Snapshot(stamp, sorted(read()));
			snapshot = current;
		}
		return current.states();
	}

	/** @return the states of one repository, newest first */
	public List<StateInfo> states(File gitDir) throws IOException {
		String key = canonical(gitDir).getPath();
		return states().stream().filter(s -> s.gitDir().getPath().equals(key)).toList();
	}

	public Optional<StateInfo> find(File gitDir, String commitId) throws IOException {
		return states(gitDir).stream().filter(s -> s.commitId().equals(commitId)).findFirst();
	}

	/** @return a fresh archive path for a new state of (repository, commit); its folder exists */
	public Path newArchivePath(File gitDir, String commitId) throws IOException {
		Path folder = directory.resolve(STATES_DIR).resolve(repositoryKey(canonical(gitDir)));
		Files.createDirectories(folder);
		return folder.resolve(commitId + '-' + Long.toHexString(System.nanoTime() ^ System.currentTimeMillis() << 20)
				+ ARCHIVE_SUFFIX);
	}

	/**
	 * Adds a state whose archive is committed, replacing any state of the same (repository, commit). For each branch
	 * of the new state, an older state of that branch loses the branch and is retired once it has no branch left,
	 * unless its commit is in {@code commitsInUse} (commits that a branch or HEAD points at now). Then the least
	 * recently used states are evicted until the store fits {@code budgetBytes} (0 or less: no budget); the added
	 * state is never evicted. Archives of removed states are deleted.
	 */
	public AddResult add(StateInfo state, Collection<String> commitsInUse, long budgetBytes) throws IOException {
		StateInfo added = withGitDir(state, canonical(state.gitDir()));
		return update(states -> {
			List<StateInfo> replaced = new ArrayList<>();
			List<StateInfo> retired = new ArrayList<>();
			List<StateInfo> result = new ArrayList<>();
			Set<String> branches = new HashSet<>(added.branches());
			for (StateInfo s : states) {
				if (!s.gitDir().equals(added.gitDir())) {
					result.add(s);
				} else if (s.commitId().equals(added.commitId())) {
					replaced.add(s);
				} else if (!branches.isEmpty() && s.branches().stream().anyMatch(branches::contains)) {
					List<String> left = s.branches().stream().filter(b -> !branches.contains(b)).toList();
					if (left.isEmpty() && !commitsInUse.contains(s.commitId())) {
						retired.add(s);
					} else {
						result.add(withBranches(s, left));
					}
				} else {
					result.add(s);
				}
			}
			result.add(added);
			List<StateInfo> evicted = evict(result, budgetBytes, added);
			result.removeAll(evicted);
			return new Change(result, new AddResult(added, replaced, retired, evicted));
		});
	}

	/** Evicts least-recently-used states until the store fits the budget; {@code keep} is never evicted. */
	public List<StateInfo> evictToBudget(long budgetBytes, StateInfo keep) throws IOException {
		return update(states -> {
			List<StateInfo> result = new ArrayList<>(states);
			List<StateInfo> evicted = evict(result, budgetBytes, keep);
			result.removeAll(evicted);
			return new Change(result, evicted);
		});
	}

	/** Records that a state was used (restored) now. */
	public void touch(StateInfo state, Instant when) throws IOException {
		String key = canonical(state.gitDir()).getPath();
		update(states -> new Change(states.stream()
				.map(s -> s.gitDir().getPath().equals(key) && s.commitId().equals(state.commitId())
						? new StateInfo(s.gitDir(), s.commitId(), s.branches(), s.archive(), s.created(), when,
								s.size(), s.uncompressedSize(), s.contributors(), s.dirtyPaths())
						: s)
				.toList(), null));
	}

	/** Removes states and deletes their archives. @return the states that were in the catalog */
	public List<StateInfo> remove(Collection<StateInfo> toRemove) throws IOException {
		return update(states -> {
			List<StateInfo> removed = new ArrayList<>();
			List<StateInfo> result = new ArrayList<>();
			for (StateInfo s : states) {
				boolean match = toRemove.stream().anyMatch(r -> canonical(r.gitDir()).equals(s.gitDir())
						&& r.commitId().equals(s.commitId()));
				(match ? removed : result).add(s);
			}
			return new Change(result, removed);
		});
	}

	/**
	 * Deletes what crashed or killed saves left in the store, whatever its age: temporary files of archive writers
	 * that are gone (a running writer holds a lock on its file, see {@link Archives#deleteIfAbandoned}), temporary
	 * files of catalog writes (written under the catalog lock, which this method holds), and archives that no catalog
	 * entry names and no live save holds (a save holds its archive's name from before the archive exists until the
	 * catalog names it, see {@link Archives#hold}: the archive of a save still running here or in another IDE sharing
	 * the store is kept).
	 *
	 * @return the deleted files
	 */
	public List<Path> cleanOrphans() throws IOException {
		return update(states -> {
			Set<Path> known = new HashSet<>();
			for (StateInfo s : states) {
				for (Path file : filesOf(s.archive())) {
					known.add(file.toAbsolutePath().normalize());
				}
			}
			List<Path> deleted = new ArrayList<>();
			try (Stream<Path> files = Files.list(directory)) {
				for (Path file : (Iterable<Path>) files::iterator) {
					String name = file.getFileName().toString();
					if ((name.startsWith("." + CATALOG_FILE + ".tmp-") //$NON-NLS-1$ //$NON-NLS-2$
							|| name.startsWith("." + VerifiedFiles.FILE + ".tmp-")) //$NON-NLS-1$ //$NON-NLS-2$
							&& Files.deleteIfExists(file)) {
						deleted.add(file);
					}
				}
			}
			Path statesDir = directory.resolve(STATES_DIR);
			if (!Files.isDirectory(statesDir)) {
				return new Change(states, deleted);
			}
			List<Path> unnamed;
			try (Stream<Path> files = Files.walk(statesDir)) {
				unnamed = files.filter(Files::isRegularFile)
						.filter(file -> !known.contains(file.toAbsolutePath().normalize())).toList();
			}
			// the temporary files of gone writers and holders first, then the archives that nobody holds any more
			for (Path file : unnamed) {
				if (isTemporary(file) && Archives.deleteIfAbandoned(file)) {
					deleted.add(file);
				}
			}
			// a continued file (a link beside the archive that shares its entries) is held with its archive's name
			for (Path file : unnamed) {
				if (!isTemporary(file) && !Archives.isHeld(Archives.continuedBy(file).orElse(file))
						&& Files.deleteIfExists(file)) {
					deleted.add(file);
				}
			}
			return new Change(states, deleted);
		});
	}

	/**
	 * @return whether the store's {@code states/} folder holds temporary files (of archive writers, or names held by
	 *         saves): those of running saves, or of killed ones that {@link #cleanOrphans} left because they were
	 *         written too recently to tell from a file just created and not locked yet
	 */
	public boolean hasTemporaryFiles() throws IOException {
		Path statesDir = directory.resolve(STATES_DIR);
		if (!Files.isDirectory(statesDir)) {
			return false;
		}
		try (Stream<Path> files = Files.walk(statesDir)) {
			return files.anyMatch(file -> Files.isRegularFile(file) && isTemporary(file));
		}
	}

	private static boolean isTemporary(Path file) {
		return file.getFileName().toString().startsWith("."); //$NON-NLS-1$
	}

	/** @return what the archives in the catalog take on disk (files that several share counted once) */
	public long totalSize() throws IOException {
		return new DiskUse(states()).total();
	}

	/**
	 * @return the files of an archive: its own and those it continues when it shares a previous state's entries;
	 *         when it cannot say (damaged), its own and the links named after it
	 */
	static List<Path> filesOf(Path archive) {
		List<Path> files;
		try {
			files = Archives.files(archive);
		} catch (IOException e) {
			files = List.of(archive);
		}
		if (files.size() > 1) {
			return files;
		}
		// a damaged archive cannot say which files it continues (a truncated one reads as continuing none): the links
		// named after it, <archive>.1, .2, ..., are its own
		List<Path> withLinks = new ArrayList<>(files);
		for (int n = 1;; n++) {
			Path link = archive.resolveSibling(archive.getFileName() + "." + n); //$NON-NLS-1$
			if (!Files.exists(link, LinkOption.NOFOLLOW_LINKS)) {
				return withLinks;
			}
			withLinks.add(link);
		}
	}

	/**
	 * Deletes an archive's files: its own first (no reader then finds an archive whose continued files are gone),
	 * then its links to the files it continues (their bytes stay while another archive links them).
	 */
	private static void deleteArchive(Path archive) throws IOException {
		List<Path> files = filesOf(archive);
		Files.deleteIfExists(archive);
		for (Path file : files) {
			Files.deleteIfExists(file);
		}
	}

	// ---------------------------------------------------------------------------------------------------------

	private record Change(List<StateInfo> states, Object result) {
	}

	@FunctionalInterface
	private interface Mutation {
		Change apply(List<StateInfo> states) throws IOException;
	}

	/**
	 * Read-modify-write of the catalog under the in-process and the inter-process lock; deletes the archives of the
	 * states that the mutation dropped, after the new catalog is written.
	 */
	@SuppressWarnings("unchecked")
	private <T> T update(Mutation mutation) throws IOException {
		ReentrantLock lock = LOCKS.computeIfAbsent(directory, d -> new ReentrantLock());
		lock.lock();
		try (FileChannel channel = FileChannel.open(directory.resolve(LOCK_FILE), StandardOpenOption.CREATE,
				StandardOpenOption.WRITE); FileLock fileLock = channel.lock()) {
			List<StateInfo> before;
			try {
				before = read();
			} catch (IOException | RuntimeException e) {
				// an unreadable catalog must not stop the store for good: keep it aside and start over; its
				// archives become orphans that cleanOrphans removes
				Path aside = directory.resolve(CATALOG_FILE + ".unreadable-" + System.currentTimeMillis()); //$NON-NLS-1$
				Files.move(catalogFile, aside, StandardCopyOption.REPLACE_EXISTING);
				before = new ArrayList<>();
			}
			Change change = mutation.apply(before);
			if (change.states() != before) {
				write(change.states());
				Set<Path> kept = new HashSet<>();
				change.states().forEach(s -> kept.add(s.archive()));
				for (StateInfo s : before) {
					if (!kept.contains(s.archive())) {
						deleteArchive(s.archive());
					}
				}
			}
			snapshot = new Snapshot(stamp(), sorted(change.states()));
			return (T) change.result();
		} finally {
			lock.unlock();
		}
	}

	/**
	 * Least recently used first, the states whose removal frees nothing (their files are linked by states that stay)
	 * are passed over while others can go; then, if the store is still past the budget, any.
	 */
	private static List<StateInfo> evict(List<StateInfo> states, long budgetBytes, StateInfo keep) {
		if (budgetBytes <= 0) {
			return List.of();
		}
		DiskUse use = new DiskUse(states);
		List<StateInfo> byAge = new ArrayList<>(states);
		byAge.sort(Comparator.comparing(StateInfo::lastUsed).thenComparing(StateInfo::created));
		List<StateInfo> evicted = new ArrayList<>();
		for (boolean evenFreeingNothing : new boolean[] { false, true }) {
			for (StateInfo s : byAge) {
				if (use.total() <= budgetBytes) {
					return evicted;
				}
				if (keep != null && s.commitId().equals(keep.commitId())
						&& canonical(s.gitDir()).equals(canonical(keep.gitDir())) || evicted.contains(s)
						|| !evenFreeingNothing && use.freedBy(s) == 0) {
					continue;
				}
				evicted.add(s);
				use.remove(s);
			}
		}
		return evicted;
	}

	private Object stamp() throws IOException {
		try {
			BasicFileAttributes a = Files.readAttributes(catalogFile, BasicFileAttributes.class);
			Object key = a.fileKey();
			return List.of(key == null ? "" : key, a.lastModifiedTime(), Long.valueOf(a.size())); //$NON-NLS-1$
		} catch (NoSuchFileException e) {
			return "none"; //$NON-NLS-1$
		}
	}

	private List<StateInfo> read() throws IOException {
		if (!Files.exists(catalogFile)) {
			return List.of();
		}
		ResourceSet set = new ResourceSetImpl();
		set.getPackageRegistry().put(CatalogPackage.NS_URI, CatalogPackage.PACKAGE);
		Resource resource;
		try {
			resource = EmfStates.loadFromFile(catalogFile, set);
		} catch (IOException | RuntimeException e) {
			throw new IOException("unreadable state catalog " + catalogFile + ": " + e.getMessage(), e); //$NON-NLS-1$ //$NON-NLS-2$
		}
		List<StateInfo> result = new ArrayList<>();
		for (EObject root : resource.getContents()) {
			if (root.eClass() != CatalogPackage.CATALOG) {
				throw new IOException("not a state catalog: " + catalogFile); //$NON-NLS-1$
			}
			for (EObject s : list(root, CatalogPackage.CATALOG_STATES)) {
				result.add(toInfo(s));
			}
		}
		return result;
	}

	private void write(List<StateInfo> states) throws IOException {
		EObject catalog = EcoreUtil.create(CatalogPackage.CATALOG);
		catalog.eSet(CatalogPackage.CATALOG_VERSION, Integer.valueOf(CATALOG_VERSION));
		EList<EObject> list = list(catalog, CatalogPackage.CATALOG_STATES);
		for (StateInfo s : states) {
			list.add(toEObject(s));
		}
		Resource resource = new BinaryResourceImpl(org.eclipse.emf.common.util.URI.createFileURI(catalogFile.toString()));
		resource.getContents().add(catalog);
		EmfStates.saveToFile(resource, catalogFile);
	}

	private StateInfo toInfo(EObject s) {
		Map<String, Integer> contributors = new LinkedHashMap<>();
		for (EObject c : list(s, CatalogPackage.STATE_CONTRIBUTORS)) {
			contributors.put((String) c.eGet(CatalogPackage.CONTRIBUTOR_ID), (Integer) c.eGet(CatalogPackage.CONTRIBUTOR_VERSION));
		}
		return new StateInfo(new File((String) s.eGet(CatalogPackage.STATE_GIT_DIR)),
				(String) s.eGet(CatalogPackage.STATE_COMMIT_ID), strings(s, CatalogPackage.STATE_BRANCHES),
				directory.resolve((String) s.eGet(CatalogPackage.STATE_ARCHIVE)).normalize(),
				Instant.ofEpochMilli((Long) s.eGet(CatalogPackage.STATE_CREATED)),
				Instant.ofEpochMilli((Long) s.eGet(CatalogPackage.STATE_LAST_USED)),
				((Long) s.eGet(CatalogPackage.STATE_SIZE)).longValue(),
				((Long) s.eGet(CatalogPackage.STATE_UNCOMPRESSED_SIZE)).longValue(), Map.copyOf(contributors),
				strings(s, CatalogPackage.STATE_DIRTY_PATHS));
	}

	private EObject toEObject(StateInfo info) {
		EObject s = EcoreUtil.create(CatalogPackage.STATE);
		s.eSet(CatalogPackage.STATE_GIT_DIR, info.gitDir().getPath());
		s.eSet(CatalogPackage.STATE_COMMIT_ID, info.commitId());
		s.eSet(CatalogPackage.STATE_ARCHIVE, directory.relativize(info.archive().toAbsolutePath().normalize())
				.toString().replace(File.separatorChar, '/'));
		s.eSet(CatalogPackage.STATE_BRANCHES, info.branches());
		s.eSet(CatalogPackage.STATE_DIRTY_PATHS, info.dirtyPaths());
		s.eSet(CatalogPackage.STATE_CREATED, Long.valueOf(info.created().toEpochMilli()));
		s.eSet(CatalogPackage.STATE_LAST_USED, Long.valueOf(info.lastUsed().toEpochMilli()));
		s.eSet(CatalogPackage.STATE_SIZE, Long.valueOf(info.size()));
		s.eSet(CatalogPackage.STATE_UNCOMPRESSED_SIZE, Long.valueOf(info.uncompressedSize()));
		EList<EObject> contributors = list(s, CatalogPackage.STATE_CONTRIBUTORS);
		info.contributors().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
			EObject c = EcoreUtil.create(CatalogPackage.CONTRIBUTOR);
			c.eSet(CatalogPackage.CONTRIBUTOR_ID, e.getKey());
			c.eSet(CatalogPackage.CONTRIBUTOR_VERSION, e.getValue());
			contributors.add(c);
		});
		return s;
	}

	@SuppressWarnings("unchecked")
	private static EList<EObject> list(EObject o, org.eclipse.emf.ecore.EReference ref) {
		return (EList<EObject>) o.eGet(ref);
	}

	@SuppressWarnings("unchecked")
	private static List<String> strings(EObject o, org.eclipse.emf.ecore.EAttribute attribute) {
		return List.copyOf((List<String>) o.eGet(attribute));
	}

	private static List<StateInfo> sorted(List<StateInfo> states) {
		List<StateInfo> result = new ArrayList<>(states);
		result.sort(Comparator.comparing(StateInfo::created).reversed());
		return List.copyOf(result);
	}

	private static StateInfo withGitDir(StateInfo s, File gitDir) {
		return new StateInfo(gitDir, s.commitId(), s.branches(), s.archive(), s.created(), s.lastUsed(), s.size(),
				s.uncompressedSize(), s.contributors(), s.dirtyPaths());
	}

	private static StateInfo withBranches(StateInfo s, List<String> branches) {
		return new StateInfo(s.gitDir(), s.commitId(), branches, s.archive(), s.created(), s.lastUsed(), s.size(),
				s.uncompressedSize(), s.contributors(), s.dirtyPaths());
	}

	static String repositoryKey(File canonicalGitDir) {
		try {
			MessageDigest sha1 = MessageDigest.getInstance("SHA-1"); //$NON-NLS-1$
			byte[] digest = sha1.digest(canonicalGitDir.getPath().getBytes(StandardCharsets.UTF_8));
			File named = ".git".equals(canonicalGitDir.getName()) && canonicalGitDir.getParentFile() != null //$NON-NLS-1$
					? canonicalGitDir.getParentFile()
					: canonicalGitDir;
			String name = named.getName().replaceAll("[^A-Za-z0-9._-]", "_"); //$NON-NLS-1$ //$NON-NLS-2$
			return (name.isEmpty() ? "repo" : name) + '-' + HexFormat.of().formatHex(digest, 0, 6); //$NON-NLS-1$
		} catch (NoSuchAlgorithmException e) {
			throw new IllegalStateException(e);
		}
	}
}
