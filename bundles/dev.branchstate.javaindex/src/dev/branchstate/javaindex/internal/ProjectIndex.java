package dev.branchstate.javaindex.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.IPath;
import org.eclipse.emf.common.util.URI;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.emf.ecore.resource.Resource;
import org.eclipse.emf.ecore.resource.ResourceSet;
import org.eclipse.emf.ecore.resource.impl.BinaryResourceImpl;
import org.eclipse.emf.ecore.resource.impl.ResourceSetImpl;

import dev.branchstate.core.emf.EmfStates;
import dev.branchstate.javaindex.Declaration;

/**
 * The index of one project: the store (EMF binary resources under a directory of the bundle's state location) and
 * the in-memory tables the queries read. The store and the tables change together, under {@link #lock}; the store
 * is written through (temporary file, atomic rename; not forced: a file a crash left empty or torn fails to load
 * and the store is rebuilt).
 * <p>
 * Store layout ({@link Layout}): one resource per compilation unit ({@code units/<path>.bin}), or a fixed number
 * of shards ({@code shards/<nn>.bin}) each holding the units whose path hashes to it. {@value #FORMAT_FILE} names
 * the layout; a store of another layout is discarded and rebuilt.
 */
final class ProjectIndex {

	static final String FORMAT_FILE = "index.properties"; //$NON-NLS-1$
	private static final String UNITS = "units/"; //$NON-NLS-1$
	private static final String SHARDS = "shards/"; //$NON-NLS-1$
	private static final String SUFFIX = ".bin"; //$NON-NLS-1$

	/** How compilation units map to store files. {@code shards == 0}: one file per unit. */
	record Layout(int shards) {
		String fileOf(String unitPath) {
			if (shards == 0) {
				return UNITS + unitPath + SUFFIX;
			}
			int h = (unitPath.hashCode() & 0x7fffffff) % shards;
			return SHARDS + String.format("%03d", h) + SUFFIX; //$NON-NLS-1$
		}

		String format() {
			return "format=1\nlayout=" + (shards == 0 ? "units" : "shards:" + shards) + '\n'; //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
		}
	}

	final ReentrantLock lock = new ReentrantLock();
	final IProject project;
	final Path directory;
	final Layout layout;
	private final IPath projectPath;

	private final Map<String, UnitSummary> units = new HashMap<>();
	/** store file → unit paths it holds */
	private final Map<String, Set<String>> fileUnits = new HashMap<>();
	/** simple name → unit path → the unit's declarations of that name (removing a unit touches only its names) */
	private final Map<String, Map<String, List<Declaration>>> declarationsByName = new HashMap<>();
	private final Map<String, Set<String>> referencesByName = new HashMap<>();
	private boolean loaded;

	ProjectIndex(IProject project, Path directory, Layout layout) {
		this.project = project;
		this.directory = directory;
		this.layout = layout;
		this.projectPath = project.getFullPath();
	}

	/** @return whether the tables reflect the store */
	boolean loaded() {
		return loaded;
	}

	/**
	 * Loads the tables from the store. A store that is missing, of another layout or unreadable is deleted.
	 *
	 * @return whether a usable store was found (otherwise the caller indexes every file)
	 */
	boolean load() throws IOException {
		clearTables();
		loaded = true;
		if (!layout.format().equals(readFormat())) {
			wipe();
			return false;
		}
		try {
			reload(storeFiles(), List.of());
			return true;
		} catch (IOException | RuntimeException e) {
			wipe();
			return false;
		}
	}

	/** Deletes the store and empties the tables; writes the format file of an empty store. */
	void wipe() throws IOException {
		clearTables();
		loaded = true;
		deleteTree(directory);
		Files.createDirectories(directory);
		Files.writeString(directory.resolve(FORMAT_FILE), layout.format(), StandardCharsets.UTF_8);
	}

	/** Forgets the tables (the project was closed); the store stays. */
	void unload() {
		clearTables();
		loaded = false;
	}

	private void clearTables() {
		units.clear();
		fileUnits.clear();
		declarationsByName.clear();
		referencesByName.clear();
	}

	String readFormat() throws IOException {
		try {
			return Files.readString(directory.resolve(FORMAT_FILE), StandardCharsets.UTF_8);
		} catch (NoSuchFileException e) {
			return null;
		}
	}

	/** @return store-relative names of the resource files of the store, sorted */
	List<String> storeFiles() throws IOException {
		if (!Files.isDirectory(directory)) {
			return List.of();
		}
		try (Stream<Path> files = Files.walk(directory)) {
			return files.filter(Files::isRegularFile).map(p -> directory.relativize(p).toString().replace('\\', '/'))
					.filter(n -> n.endsWith(SUFFIX) && (n.startsWith(UNITS) || n.startsWith(SHARDS))).sorted()
					.toList();
		}
	}

	/**
	 * Reloads the tables for store files that were rewritten or deleted behind the index's back (by a restore).
	 */
	void reload(Collection<String> written, Collection<String> deleted) throws IOException {
		for (String file : deleted) {
			dropFile(file);
		}
		Map<String, List<UnitSummary>> read = new LinkedHashMap<>();
		try {
			written.parallelStream().filter(f -> f.endsWith(SUFFIX)).forEach(f -> {
				List<UnitSummary> summaries = readFile(f);
				synchronized (read) {
					read.put(f, summaries);
				}
			});
		} catch (UncheckedIOException e) {
			throw e.getCause();
		}
		for (Map.Entry<String, List<UnitSummary>> e : read.entrySet()) {
			dropFile(e.getKey());
			for (UnitSummary s : e.getValue()) {
				put(e.getKey(), s);
			}
		}
	}

	private void dropFile(String file) {
		Set<String> paths = fileUnits.remove(file);
		if (paths != null) {
			for (String path : paths) {
				remove(path);
			}
		}
	}

	private List<UnitSummary> readFile(String file) {
		try {
			List<UnitSummary> out = new ArrayList<>();
			for (EObject unit : loadUnits(file)) {
				out.add(UnitSummary.of(projectPath, unit));
			}
			return out;
		} catch (IOException e) {
			throw new UncheckedIOException(e);
		}
	}

	private List<EObject> loadUnits(String file) throws IOException {
		Path path = directory.resolve(file);
		if (!Files.exists(path)) {
			return List.of();
		}
		ResourceSet set = resourceSet();
		try (InputStream in = Files.newInputStream(path)) {
			Resource resource = EmfStates.read(in, set, URI.createURI(file));
			if (resource.getContents().isEmpty()) {
				throw new IOException("empty index file " + path); //$NON-NLS-1$
			}
			return new ArrayList<>(resource.getContents());
		}
	}

	static ResourceSet resourceSet() {
		ResourceSet set = new ResourceSetImpl();
		set.getPackageRegistry().put(IndexModel.NS_URI, IndexModel.PACKAGE);
		return set;
	}

	/** @return the hash the index has for a unit, or {@code null} */
	String hash(String path) {
		UnitSummary s = units.get(path);
		return s == null ? null : s.hash();
	}

	Set<String> unitPaths() {
		return units.keySet();
	}

	/**
	 * Writes parsed units and removes units from the store, then updates the tables. Caller holds the lock.
	 */
	void apply(Map<String, EObject> parsed, Collection<String> removed) throws IOException {
		Map<String, List<String>> byFile = new TreeMap<>();
		for (String path : parsed.keySet()) {
			byFile.computeIfAbsent(layout.fileOf(path), k -> new ArrayList<>()).add(path);
		}
		for (String path : removed) {
			if (units.containsKey(path)) {
				byFile.computeIfAbsent(layout.fileOf(path), k -> new ArrayList<>()).add(path);
			}
		}
		IOException[] failure = new IOException[1];
		byFile.entrySet().parallelStream().forEach(e -> {
			try {
				writeFile(e.getKey(), e.getValue(), parsed);
			} catch (IOException ex) {
				synchronized (failure) {
					failure[0] = ex;
				}
			}
		});
		if (failure[0] != null) {
			throw failure[0];
		}
		for (String path : removed) {
			String file = layout.fileOf(path);
			remove(path);
			Set<String> paths = fileUnits.get(file);
			if (paths != null) {
				paths.remove(path);
				if (paths.isEmpty()) {
					fileUnits.remove(file);
				}
			}
		}
		for (Map.Entry<String, EObject> e : parsed.entrySet()) {
			remove(e.getKey());
			put(layout.fileOf(e.getKey()), UnitSummary.of(projectPath, e.getValue()));
		}
	}

	private void writeFile(String file, List<String> changedPaths, Map<String, EObject> parsed) throws IOException {
		Path target = directory.resolve(file);
		List<EObject> contents = new ArrayList<>();
		if (layout.shards() != 0) {
			Set<String> changed = new HashSet<>(changedPaths);
			for (EObject unit : loadUnits(file)) {
				if (!changed.contains(unit.eGet(IndexModel.UNIT_PATH))) {
					contents.add(unit);
				}
			}
		}
		for (String path : changedPaths) {
			EObject unit = parsed.get(path);
			if (unit != null) {
				contents.add(unit);
			}
		}
		if (contents.isEmpty()) {
			Files.deleteIfExists(target);
			return;
		}
		contents.sort(Comparator.comparing(u -> (String) u.eGet(IndexModel.UNIT_PATH)));
		Resource resource = new BinaryResourceImpl(URI.createURI(file));
		resource.getContents().addAll(contents);
		try {
			BinaryStore.saveToFile(resource, target);
		} finally {
			// give the units back: the resource is only a vehicle for serialization
			resource.getContents().clear();
		}
	}

	private void put(String file, UnitSummary s) {
		units.put(s.path(), s);
		fileUnits.computeIfAbsent(file, k -> new HashSet<>()).add(s.path());
		for (Declaration d : s.declarations()) {
			declarationsByName.computeIfAbsent(d.name(), k -> new HashMap<>())
					.computeIfAbsent(s.path(), k -> new ArrayList<>(1)).add(d);
		}
		for (String name : s.references()) {
			referencesByName.computeIfAbsent(name, k -> new HashSet<>()).add(s.path());
		}
	}

	private void remove(String path) {
		UnitSummary s = units.remove(path);
		if (s == null) {
			return;
		}
		for (Declaration d : s.declarations()) {
			Map<String, List<Declaration>> byUnit = declarationsByName.get(d.name());
			if (byUnit != null && byUnit.remove(path) != null && byUnit.isEmpty()) {
				declarationsByName.remove(d.name());
			}
		}
		for (String name : s.references()) {
			Set<String> set = referencesByName.get(name);
			if (set != null) {
				set.remove(path);
				if (set.isEmpty()) {
					referencesByName.remove(name);
				}
			}
		}
	}

	List<Declaration> declarations(String name) {
		Map<String, List<Declaration>> byUnit = declarationsByName.get(name);
		return byUnit == null ? List.of() : byUnit.values().stream().flatMap(List::stream).toList();
	}

	List<IPath> referencing(String name) {
		return referencesByName.getOrDefault(name, Set.of()).stream().map(projectPath::append).toList();
	}

	String dump() {
		StringBuilder out = new StringBuilder();
		units.values().stream().sorted(Comparator.comparing(UnitSummary::path)).forEach(u -> {
			out.append(u.path()).append(' ').append(u.hash()).append('\n');
			for (Declaration d : u.declarations()) {
				out.append("  ").append(d.kind()).append(' ').append(d.container()).append(' ').append(d.name()) //$NON-NLS-1$
						.append(' ').append(d.modifiers()).append(' ').append(d.signature()).append('\n');
			}
			out.append("  refs ").append(String.join(",", u.references())).append('\n'); //$NON-NLS-1$ //$NON-NLS-2$
		});
		return out.toString();
	}

	/** @return whether the index has at least one unit */
	boolean isEmpty() {
		return units.isEmpty();
	}

	static void deleteTree(Path root) throws IOException {
		if (!Files.exists(root)) {
			return;
		}
		try (Stream<Path> files = Files.walk(root)) {
			for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
				Files.deleteIfExists(p);
			}
		}
	}
}
