package dev.branchstate.core.internal.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The archive files of the store whose entries were all read back sound, or written by a save from the files
 * themselves: a save that shares a previous state's entries reads them again only when one of its files is not
 * here. Each file is recorded with its file key (the inode: a link to it is the same file), size and modification
 * time, so that a file written since (damaged, truncated, replaced) is read again before anything shares it. A
 * change that leaves all three as they were (a disk's silent error) is found by the restore that would write the
 * entry, which reads every entry it writes before writing anything.
 * <p>
 * Kept in {@code verified.txt} beside the catalog, one line per file ({@code path TAB stamp}), replaced atomically;
 * two processes writing it at once lose at worst a line, which costs one more reading.
 */
public final class VerifiedFiles {

	static final String FILE = "verified.txt"; //$NON-NLS-1$

	private final Path store;
	private final Path file;

	VerifiedFiles(Path store) {
		this.store = store;
		this.file = store.resolve(FILE);
	}

	/** @return whether every one of {@code files} is recorded as it is now */
	public boolean containsAll(Collection<Path> files) {
		Map<String, String> recorded = read();
		java.util.Set<String> stamps = new java.util.HashSet<>(recorded.values());
		for (Path f : files) {
			String stamp = stamp(f);
			if (stamp == null || !stamps.contains(stamp)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Records {@code files} as they are now; drops the lines of files that changed or went since. A record that
	 * cannot be written (a full disk) is left as it was: it only costs reading the files again.
	 */
	public void addAll(Collection<Path> files) {
		Map<String, String> lines = new LinkedHashMap<>();
		for (Map.Entry<String, String> e : read().entrySet()) {
			String now = stamp(store.resolve(e.getKey()));
			if (e.getValue().equals(now)) {
				lines.put(e.getKey(), now);
			}
		}
		for (Path f : files) {
			String stamp = stamp(f);
			if (stamp != null) {
				lines.put(store.relativize(f.toAbsolutePath().normalize()).toString(), stamp);
			}
		}
		StringBuilder text = new StringBuilder();
		lines.forEach((path, stamp) -> text.append(path).append('\t').append(stamp).append('\n'));
		Path temp = store.resolve("." + FILE + ".tmp-" + Long.toHexString(ThreadLocalRandom.current().nextLong())); //$NON-NLS-1$ //$NON-NLS-2$
		try {
			Files.writeString(temp, text, StandardCharsets.UTF_8);
			Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
		} catch (IOException e) {
			try {
				Files.deleteIfExists(temp);
			} catch (IOException again) {
				// the store's clean-up at the next start deletes it
			}
		}
	}

	private Map<String, String> read() {
		Map<String, String> lines = new LinkedHashMap<>();
		List<String> text;
		try {
			text = Files.readAllLines(file, StandardCharsets.UTF_8);
		} catch (IOException e) {
			return lines; // unreadable: every file is read again, and the next record replaces it
		}
		for (String line : text) {
			int tab = line.indexOf('\t');
			if (tab > 0) {
				lines.put(line.substring(0, tab), line.substring(tab + 1));
			}
		}
		return lines;
	}

	/** @return the file's key, size and modification time, {@code null} when it cannot be read */
	private static String stamp(Path f) {
		try {
			BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
			if (!a.isRegularFile()) {
				return null;
			}
			Object key = a.fileKey();
			return (key != null ? key.toString() : f.toAbsolutePath().normalize().toString()) + ' ' + a.size() + ' '
					+ a.lastModifiedTime().to(java.util.concurrent.TimeUnit.NANOSECONDS);
		} catch (IOException e) {
			return null;
		}
	}
}
