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
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.eclipse.core.resources.IProject;

/**
 * The projects a restore is writing derived data into, kept on disk for as long as it writes: one file per restore
 * ({@code <random>.restoring}, one project name a line), forced to disk before the first derived file is written and
 * deleted once the restore has ended, its own fail-safe included. A restore that did not end — the IDE killed or
 * crashed, the power cut, an {@link Error} in its thread — leaves its file: the state service then removes the
 * derived data of those projects and has their builders build them in full, before any build (see
 * {@link StateService#recoverInterruptedRestores}), which is what the fail-safe of a restore that fails does. Without
 * it, an output folder half of one commit and half of another, with the restore's temporary files in it, would be
 * taken as built by the next incremental build.
 */
public final class RestoreJournal {

	private static final String SUFFIX = ".restoring"; //$NON-NLS-1$
	private static final String TEMPORARY = ".tmp"; //$NON-NLS-1$

	private final Path directory;
	/** The files of this session's restores that are still writing. */
	private final Set<Path> running = ConcurrentHashMap.newKeySet();
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

	/** A restore on record: {@link #close} it once the restore has ended, {@link #abandon} it if it died. */
	public final class Entry implements AutoCloseable {
		private final Path file;

		private Entry(Path file) {
			this.file = file;
		}

		/** The restore ended (written, or undone by its own fail-safe): its record goes. */
		@Override
		public void close() throws IOException {
			running.remove(file);
			Files.deleteIfExists(file);
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
		StringBuilder names = new StringBuilder();
		projects.forEach(p -> names.append(p.getName()).append('\n'));
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
		return new Entry(file);
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
