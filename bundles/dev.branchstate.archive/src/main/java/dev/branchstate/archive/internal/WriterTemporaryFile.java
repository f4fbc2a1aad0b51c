package dev.branchstate.archive.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The temporary file a writer fills before it renames it to its target: {@code .<target name>.tmp-<random hex>}
 * beside the target, created new and locked (an exclusive {@link FileLock} held by the writer's channel until the
 * channel closes).
 * <p>
 * The lock tells a file of a running writer from one a killed writer left behind: the operating system releases a
 * process's locks when it dies, whatever the signal, so a temporary file whose lock can be taken belongs to nobody
 * and may be deleted at once, with no guess from its age ({@link #deleteIfAbandoned}). Two details of file locks
 * shape this class: closing any channel of a file releases every lock the process holds on it (POSIX), so the files
 * of this process's writers are known from a table and never opened to test them; and a file is created before it is
 * locked, so a file younger than {@link #CREATION_GRACE} is left alone.
 */
public final class WriterTemporaryFile {

	private static final Pattern NAME = Pattern.compile("\\..+\\.tmp-[0-9a-f]{1,16}");

	/** Longer than the time between creating and locking a temporary file. */
	static final Duration CREATION_GRACE = Duration.ofSeconds(2);

	/** The temporary files of this process's writers, with the channel that holds each one's lock. */
	private static final Map<Path, FileChannel> OWN = new ConcurrentHashMap<>();

	private WriterTemporaryFile() {
	}

	/** @return the temporary file's path for a writer of {@code target} (not created) */
	public static Path beside(Path target) {
		return target.resolveSibling("." + target.getFileName() + ".tmp-"
				+ Long.toHexString(ThreadLocalRandom.current().nextLong()));
	}

	/**
	 * Creates the temporary file and locks it.
	 *
	 * @return a channel open for writing and reading, holding the lock until it is closed
	 */
	public static FileChannel createLocked(Path temp) throws IOException {
		FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
				StandardOpenOption.READ);
		try {
			if (channel.tryLock() == null) {
				throw new IOException("cannot lock a new temporary file: " + temp);
			}
			OWN.values().removeIf(c -> !c.isOpen());
			OWN.put(temp.toAbsolutePath().normalize(), channel);
			return channel;
		} catch (IOException | RuntimeException e) {
			channel.close();
			Files.deleteIfExists(temp);
			throw e;
		}
	}

	/** Closes the channel of a file made by {@link #createLocked} (its lock goes with it) and deletes the file. */
	public static void release(Path temp, FileChannel channel) throws IOException {
		OWN.remove(temp.toAbsolutePath().normalize(), channel);
		try {
			channel.close();
		} finally {
			Files.deleteIfExists(temp);
		}
	}

	/**
	 * @return whether a running writer or holder, in this or another process, has a temporary file beside
	 *         {@code target}; the temporary files of gone ones found there are deleted on the way
	 */
	public static boolean isHeld(Path target) throws IOException {
		String prefix = "." + target.getFileName() + ".tmp-"; //$NON-NLS-1$ //$NON-NLS-2$
		List<Path> temporary;
		try (Stream<Path> files = Files.list(target.getParent())) {
			temporary = files.filter(f -> f.getFileName().toString().startsWith(prefix)).toList();
		} catch (NoSuchFileException e) {
			return false;
		}
		for (Path file : temporary) {
			if (!deleteIfAbandoned(file) && Files.exists(file)) {
				return true;
			}
		}
		return false;
	}

	/** @return whether the name is that of a writer's temporary file */
	public static boolean isTemporaryName(Path file) {
		return NAME.matcher(file.getFileName().toString()).matches();
	}

	/**
	 * Deletes {@code file} if it is a writer's temporary file that no running writer holds (in this or any other
	 * process).
	 *
	 * @return whether it was deleted
	 */
	public static boolean deleteIfAbandoned(Path file) throws IOException {
		if (!isTemporaryName(file)) {
			return false;
		}
		FileChannel own = OWN.get(file.toAbsolutePath().normalize());
		if (own != null && own.isOpen()) {
			return false; // a writer of this process holds it (opening the file here would release its lock)
		}
		try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
			if (Files.getLastModifiedTime(file).toInstant().isAfter(Instant.now().minus(CREATION_GRACE))) {
				return false; // perhaps created and not locked yet
			}
			FileLock lock;
			try {
				lock = channel.tryLock();
			} catch (OverlappingFileLockException e) {
				return false; // a writer of this process holds it
			}
			if (lock == null) {
				return false; // a writer of another process holds it
			}
			Files.deleteIfExists(file); // the lock is held while deleting: no writer can take the file meanwhile
			return true;
		} catch (NoSuchFileException e) {
			return false; // its writer committed or aborted meanwhile
		}
	}
}
