package dev.branchstate.core.internal.switching;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import dev.branchstate.core.internal.Messages;
import dev.branchstate.core.internal.Log;

/**
 * The last HEAD handled per repository, with what the derived data on disk was (the HEAD it reflects, and whether a
 * stored state equals it), kept in a small properties file: a HEAD that moved while Eclipse was closed is noticed at
 * start-up, and a state restored or saved before a restart is not saved again by the first switch after it. Written to a temporary name, forced and moved atomically into place.
 */
final class HandledHeads {

	/** Marks a derived HEAD whose stored state equals the derived data. */
	private static final String STORED = "stored"; //$NON-NLS-1$

	private final Path file;
	private final Map<String, String> heads = new TreeMap<>();

	HandledHeads(Path file) {
		this.file = file;
		if (file != null && Files.isRegularFile(file)) {
			Properties properties = new Properties();
			try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
				properties.load(reader);
				properties.forEach((k, v) -> heads.put((String) k, (String) v));
			} catch (IOException | IllegalArgumentException e) {
				// an unreadable file only means that moves while Eclipse was closed are not noticed this time
				Log.warning(Messages.bind(Messages.Switch_headsUnreadable, file), e);
			}
		}
	}

	/**
	 * @param handled the last HEAD the switch protocol handled
	 * @param derived the HEAD the derived data reflects, {@code null} when unknown
	 * @param stored  whether a stored state of {@code derived} equals the derived data (no build since)
	 */
	record Remembered(Head handled, Head derived, boolean stored) {
	}

	/** @return what is remembered of the repository, or {@code null} when it has not been seen before */
	synchronized Remembered get(String gitDir) {
		String value = heads.get(gitDir);
		if (value == null) {
			return null;
		}
		String[] fields = value.split("\\|", -1); //$NON-NLS-1$
		Head handled = Head.decode(fields[0]);
		Head derived = fields.length < 2 ? handled : Head.decode(fields[1]);
		boolean stored = fields.length > 2 && STORED.equals(fields[2]);
		return handled == null ? null : new Remembered(handled, derived, stored);
	}

	/** Remembers the heads of a repository and writes the file when they changed. */
	synchronized void put(String gitDir, Head handled, Head derived, boolean stored) {
		String value = handled.encode() + '|' + (derived == null ? "-" : derived.encode()) //$NON-NLS-1$
				+ (stored && derived != null ? '|' + STORED : ""); //$NON-NLS-1$
		if (value.equals(heads.put(gitDir, value))) {
			return;
		}
		write();
	}

	private void write() {
		if (file == null) {
			return;
		}
		Properties properties = new Properties();
		properties.putAll(heads);
		Path temp = file.resolveSibling(file.getFileName() + ".tmp"); //$NON-NLS-1$
		try {
			Files.createDirectories(file.getParent());
			try (Writer writer = Files.newBufferedWriter(temp, StandardCharsets.UTF_8)) {
				properties.store(writer, "Branchstate: last handled HEAD per Git directory"); //$NON-NLS-1$
			}
			try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
				channel.force(true);
			}
			Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
		} catch (IOException e) {
			Log.warning(Messages.bind(Messages.Switch_headsUnwritable, file), e);
		}
	}
}
