package dev.branchstate.core.internal.service;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Stream;

import org.eclipse.core.resources.IProject;

import dev.branchstate.core.internal.Log;
import dev.branchstate.core.internal.Messages;

/**
 * The projects a restore is writing derived data into, kept on disk for as long as it writes: one file per restore
 * ({@code <random>.restoring}, one project name a line), forced to disk before the first derived file is written and
 * deleted once the restore has ended, its own fail-safe included, and its projects' builders have built what it left
 * (or the workspace was saved in full). A restore that did not end — the IDE killed or
 * crashed, the power cut, an {@link Error} in its thread — leaves its file: the state service then removes the
 * derived data of those projects and has their builders build them in full, before any build (see
 * {@link InterruptedRestores}), which is what the fail-safe of a restore that fails does. Without
 * it, an output folder half of one commit and half of another, with the restore's temporary files in it, would be
 * taken as built by the next incremental build.
 * <p>
 * Why the record outlives the writing: the hand-off that makes the restored output right for the builders (JDT's
 * restored state, the builders' last built trees, the sources to compile again) lives in memory until the next full
 * workspace save — core.resources writes the builders' trees and JDT its state at a full save only, not at a
 * snapshot. An IDE killed before that save starts again with the builders' trees and JDT's state of that earlier save,
 * and compiles what changed since then: not a source that differs between the restored commit and the working tree
 * but not between the saved tree and the working tree, whose class file the restore wrote (found by the soak: seed 11,
 * step 342, a kill between a restore of the nearest ancestor and JDT's build). Once the builders have built, the output
 * is the working tree's build whatever state they start from again; once a full save wrote the hand-off, it is kept.
 */
public final class RestoreJournal {

	private static final String SUFFIX = ".restoring"; //$NON-NLS-1$
	private static final String TEMPORARY = ".tmp"; //$NON-NLS-1$

	private final Path directory;
	/** The files of this session's restores that are still writing or whose projects' builders have not built yet. */
	private final Set<Path> running = ConcurrentHashMap.newKeySet();
	/** The restores that ended, until their projects' builders have built: file → project names. */
	private final Map<Path, List<String>> awaitingBuild = new ConcurrentHashMap<>();
	/** Whether files of restores that did not end may be in the directory. */
	private volatile boolean pending;
	/** Counts the restores abandoned in this session: a recovery that listed before one cannot clear {@link #pending}. */
	private final AtomicInteger abandoned = new AtomicInteger();

	/** @param directory the folder of the files (created on first use) */
	public RestoreJournal(Path directory) {
		this.directory = directory;
		try (Stream<Path> files = Files.list(directory)) {
			pending = files.findAny().isPresent();
		} catch (IOException e) {
			pending = false; // no folder yet: no restore ever ran
		}
	}

	/** A restore on record: {@link #awaitBuild} once the restore has ended, {@link #abandon} it if it died. */
	public final class Entry {
		private final Path file;
		private final List<String> projects;

		private Entry(Path file, List<String> projects) {
			this.file = file;
			this.projects = projects;
		}

		/**
		 * The restore ended (written and handed off, or undone by its own fail-safe): its record stays until its
		 * projects' builders have built ({@link #closeBuilt}) or the workspace was saved in full
		 * ({@link #closeAll}).
		 */
		public void awaitBuild() {
			awaitingBuild.put(file, projects);
		}

		/** The restore died without its fail-safe: its record stays, to be recovered like a killed session's. */
		public void abandon() {
			running.remove(file);
			abandoned.incrementAndGet();
			pending = true;
		}
	}

	/**
	 * Puts a restore on record before it writes: written to a temporary name, forced and moved atomically into place.
	 *
	 * @param projects the projects whose derived data it may write
	 */
	public Entry begin(Collection<IProject> projects) throws IOException {
		Files.createDirectories(directory);
		Path file = directory.resolve(UUID.randomUUID() + SUFFIX);
		Path temp = directory.resolve(file.getFileName() + TEMPORARY);
		List<String> projectNames = projects.stream().map(IProject::getName).toList();
		StringBuilder names = new StringBuilder();
		projectNames.forEach(name -> names.append(name).append('\n'));
		running.add(file); // first: a recovery running meanwhile leaves the temporary file of a running restore alone
		try {
			try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW,
					StandardOpenOption.WRITE)) {
				ByteBuffer bytes = StandardCharsets.UTF_8.encode(names.toString());
				while (bytes.hasRemaining()) {
					channel.write(bytes);
				}
				channel.force(true);
			}
			Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
		} catch (IOException e) {
			running.remove(file);
			Files.deleteIfExists(temp);
			throw e;
		}
		return new Entry(file, projectNames);
	}

	/** @return whether restores of this session wait for their projects' builders (cheap: no I/O) */
	public boolean awaitsBuild() {
		return !awaitingBuild.isEmpty();
	}

	/** @return the records of the restores that wait for their projects' builders now */
	public Set<Path> awaitingBuild() {
		return Set.copyOf(awaitingBuild.keySet());
	}

	/**
	 * Deletes the records of the restores whose every project has been built since.
	 *
	 * @param built whether the project of that name is built (its builders have built the current tree, or it is
	 *              gone)
	 */
	public void closeBuilt(Predicate<String> built) {
		for (Map.Entry<Path, List<String>> e : awaitingBuild.entrySet()) {
			if (e.getValue().stream().allMatch(built)) {
				delete(e.getKey());
			}
		}
	}

	/** Deletes the given records of restores that waited for their builders (the workspace was saved in full). */
	public void closeAll(Collection<Path> records) {
		records.forEach(this::delete);
	}

	private void delete(Path file) {
		if (awaitingBuild.remove(file) == null) {
			return;
		}
		try {
			Files.deleteIfExists(file);
			running.remove(file);
		} catch (IOException e) {
			// the record stays: the next session removes derived data that is sound and has it rebuilt
			Log.warning(Messages.Service_restoreRecordNotDeleted, e);
		}
	}

	/** @return the folder of the records (internal: tests read it as the next session would) */
	public Path directory() {
		return directory;
	}

	/** A restore that did not end: its file and the projects it was writing. */
	public record Unfinished(Path file, List<String> projects) {
	}

	/** @return whether restores that did not end may be on record (cheap: no I/O) */
	public boolean pending() {
		return pending;
	}

	/**
	 * @return the restores on record that did not end (of earlier sessions, or abandoned in this one); the temporary
	 *         files of records never put in place are deleted (their restores wrote nothing)
	 */
	public List<Unfinished> unfinished() throws IOException {
		List<Unfinished> result = new ArrayList<>();
		if (!Files.isDirectory(directory)) {
			return result;
		}
		try (Stream<Path> files = Files.list(directory)) {
			for (Path file : files.sorted().toList()) {
				String name = file.getFileName().toString();
				if (name.endsWith(SUFFIX + TEMPORARY)
						&& !running.contains(file.resolveSibling(name.substring(0, name.length() - TEMPORARY.length())))) {
					Files.deleteIfExists(file);
				} else if (name.endsWith(SUFFIX) && !running.contains(file)) {
					List<String> projects = Files.readAllLines(file, StandardCharsets.UTF_8).stream()
							.filter(line -> !line.isBlank()).toList();
					result.add(new Unfinished(file, projects));
				}
			}
		}
		return result;
	}

	/** @return whether a restore of the project that did not end is on record */
	public boolean holds(IProject project) throws IOException {
		return pending && unfinished().stream().anyMatch(u -> u.projects().contains(project.getName()));
	}

	/** @return a mark to give {@link #allRecovered} after recovering what {@link #unfinished} lists then */
	public int mark() {
		return abandoned.get();
	}

	/** Deletes the record of a restore whose projects were recovered. */
	public void recovered(Unfinished unfinished) throws IOException {
		Files.deleteIfExists(unfinished.file());
	}

	/** Every record listed after {@code mark} was recovered: nothing is pending unless a restore was abandoned since. */
	public void allRecovered(int mark) {
		if (abandoned.get() == mark) {
			pending = false;
		}
	}
}
