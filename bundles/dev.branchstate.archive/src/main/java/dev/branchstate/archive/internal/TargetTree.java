package dev.branchstate.archive.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Every write of an extraction to its target folder: folders, files written in place, temporary files renamed into
 * place, symbolic links, times, and the mirror's deletions. Names are relative to the root, with '/' (already
 * checked by the index: no '..', no absolute names). Nothing here writes through a link found in the target: a link,
 * file or folder where something else is to be is deleted (as itself, never followed) and replaced. Safe for the
 * extraction's worker threads.
 */
final class TargetTree {

	private static final Set<OpenOption> CREATE_NEW = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
			LinkOption.NOFOLLOW_LINKS);
	/**
	 * An existing file is overwritten in place and then cut to the entry's size, not truncated first: truncating
	 * (like unlinking or renaming over it) frees its blocks, which on ext4 mounted with {@code discard} costs about a
	 * millisecond per file against a few microseconds (releng/bench/archive/RewriteBench.java).
	 */
	private static final Set<OpenOption> REWRITE = Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
			LinkOption.NOFOLLOW_LINKS);

	/** A temporary file beside where an entry goes, open for writing. */
	record Temporary(Path path, FileChannel channel) {
	}

	/** The types ({@code FileStore.type()}) of the file systems whose folder times follow their names. */
	private static final Set<String> FOLDER_TIMES_FOLLOW_NAMES = Set.of("ext2", "ext3", "ext4", "xfs", "btrfs",
			"tmpfs", "overlay", "zfs", "f2fs", "apfs", "hfs", "ntfs", "refs");

	private final Path root;
	private final Set<String> knownFolders = ConcurrentHashMap.newKeySet();
	private final ConcurrentLinkedQueue<String> written = new ConcurrentLinkedQueue<>();
	/** Whether the root was empty when the extraction began: folders are then made without a look first. */
	private boolean startedEmpty;

	/** @param root absolute and normalized */
	TargetTree(Path root) {
		this.root = root;
	}

	Path resolve(String rel) {
		return root.resolve(rel);
	}

	/** @return the names written or created so far (folders with a trailing '/'), in no particular order */
	List<String> written() {
		return new ArrayList<>(written);
	}

	/** @return the folders changed so far (no trailing '/'): each folder made, each that holds a name written or made */
	Set<String> foldersChanged() {
		Set<String> folders = foldersMade();
		for (String name : written) {
			int end = name.endsWith("/") ? name.length() - 1 : name.length();
			int slash = name.lastIndexOf('/', end - 1);
			if (slash > 0) {
				folders.add(name.substring(0, slash));
			}
		}
		return folders;
	}

	/** @return the folders made so far (no trailing '/') */
	Set<String> foldersMade() {
		Set<String> folders = new HashSet<>();
		for (String name : written) {
			if (name.endsWith("/")) {
				folders.add(name.substring(0, name.length() - 1));
			}
		}
		return folders;
	}

	/** Creates the root and its parents; notes whether the tree starts empty. */
	void create() throws IOException {
		Files.createDirectories(root);
		try (DirectoryStream<Path> children = Files.newDirectoryStream(root)) {
			startedEmpty = !children.iterator().hasNext();
		}
	}

	/** Makes {@code rel} (no trailing slash) a real folder, replacing a file or link there. */
	void makeFolder(String rel) throws IOException {
		if (rel.isEmpty() || knownFolders.contains(rel)) {
			return;
		}
		makeParent(rel);
		Path dir = root.resolve(rel);
		if (!startedEmpty && isFolderIfAny(dir)) { // most folders of a tree that was there: a stat, no failed mkdir
			knownFolders.add(rel);
			return;
		}
		try {
			Files.createDirectory(dir);
			written.add(rel + "/");
		} catch (FileAlreadyExistsException e) {
			if (!isFolder(dir)) {
				deleteTree(dir);
				try {
					Files.createDirectory(dir);
					written.add(rel + "/");
				} catch (FileAlreadyExistsException again) {
					if (!isFolder(dir)) {
						throw again;
					}
				}
			}
		}
		knownFolders.add(rel);
	}

	private void makeParent(String rel) throws IOException {
		int slash = rel.lastIndexOf('/');
		if (slash > 0) {
			makeFolder(rel.substring(0, slash));
		}
	}

	private static boolean isFolderIfAny(Path p) throws IOException {
		BasicFileAttributes a = attributesIfAny(p);
		return a != null && a.isDirectory();
	}

	private static boolean isFolder(Path p) throws IOException {
		return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isDirectory();
	}

	/**
	 * Writes {@code data} as file {@code rel} with the entry's mode and time: a new file, or an existing regular file
	 * overwritten in place (anything else there is deleted first).
	 */
	void writeFile(String rel, ByteBuffer data, EntryRecord r) throws IOException {
		makeParent(rel);
		Path file = root.resolve(rel);
		FileChannel ch;
		boolean existed = false;
		try {
			ch = FileChannel.open(file, CREATE_NEW, Modes.attribute(r.mode));
		} catch (FileAlreadyExistsException e) {
			existed = true;
			ch = openExisting(file, r);
		}
		try (FileChannel c = ch) {
			while (data.hasRemaining()) {
				c.write(data);
			}
			if (existed) {
				c.truncate(r.size);
			}
		}
		if (existed) {
			Files.setPosixFilePermissions(file, Modes.toSet(r.mode));
		}
		setTimes(file, r.mtime());
		written.add(rel);
	}

	private static FileChannel openExisting(Path file, EntryRecord r) throws IOException {
		BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
		if (!a.isRegularFile()) {
			deleteTree(file);
			return FileChannel.open(file, CREATE_NEW, Modes.attribute(r.mode));
		}
		return FileChannel.open(file, REWRITE);
	}

	/** @return a new hidden temporary file beside {@code rel}, with the entry's mode, for {@link #moveIntoPlace} */
	Temporary newTemporary(String rel, EntryRecord r) throws IOException {
		makeParent(rel);
		Path tmp = root.resolve(rel)
				.resolveSibling(".bs-" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ".tmp");
		return new Temporary(tmp, FileChannel.open(tmp, CREATE_NEW, Modes.attribute(r.mode)));
	}

	/**
	 * Gives the closed temporary file the entry's time and renames it to {@code rel}, replacing what is there (a
	 * folder in the way is deleted). The temporary file is deleted if that fails.
	 */
	void moveIntoPlace(Temporary tmp, String rel, EntryRecord r) throws IOException {
		Path file = root.resolve(rel);
		try {
			setTimes(tmp.path(), r.mtime());
			try {
				Files.move(tmp.path(), file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
			} catch (IOException e) {
				// a folder (or something else that rename cannot replace) is in the way
				deleteTree(file);
				Files.move(tmp.path(), file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
			}
		} catch (IOException | RuntimeException e) {
			discard(tmp);
			throw e;
		}
		written.add(rel);
	}

	/** Closes and deletes a temporary file that is not to be moved into place. */
	static void discard(Temporary tmp) throws IOException {
		tmp.channel().close();
		Files.deleteIfExists(tmp.path());
	}

	/** @return whether a link at {@code rel} to {@code target} resolves inside the root (absolute targets do not) */
	boolean contains(String rel, Path target) {
		Path link = root.resolve(rel);
		return !target.isAbsolute() && link.getParent().resolve(target).normalize().startsWith(root);
	}

	/**
	 * Makes {@code rel} a symbolic link to {@code target}, replacing what is there.
	 *
	 * @return {@code false} when the same link was there already (nothing written)
	 */
	boolean link(String rel, Path target) throws IOException {
		makeParent(rel);
		Path link = root.resolve(rel);
		BasicFileAttributes a = null;
		try {
			a = Files.readAttributes(link, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
		} catch (NoSuchFileException e) {
			// absent
		}
		if (a != null) {
			if (a.isSymbolicLink() && Files.readSymbolicLink(link).equals(target)) {
				return false;
			}
			deleteTree(link);
		}
		Files.createSymbolicLink(link, target);
		written.add(rel);
		return true;
	}

	/** Sets a folder's (or file's) time, not following a link. */
	void setTimes(String rel, FileTime time) throws IOException {
		setTimes(root.resolve(rel), time);
	}

	/** Sets mtime (and atime to the same value: with both given the JDK needs no extra stat). */
	private static void setTimes(Path p, FileTime time) throws IOException {
		Files.getFileAttributeView(p, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).setTimes(time, time,
				null);
	}

	/**
	 * Deletes what the tree holds beyond {@code expected}: a walk of the folders that lists each folder's names and,
	 * when {@code complete}, compares their count with the expected one; only a folder whose count differs has its
	 * names looked up. A folder whose time is the one at which it held exactly its expected names
	 * ({@link ExpectedTree#listedAt}) is not listed, when {@code trustFolderTimes}: only its sub-folders are walked.
	 * One stat per expected sub-folder and per name not expected, none per file. Links are never followed.
	 *
	 * @param complete         whether every expected name is in the tree (the extraction wrote them all): then a
	 *                         folder that holds as many names as expected holds nothing else
	 * @param trustFolderTimes whether the tree's file system sets a folder's time when a name in it changes
	 * @param listed           receives the folders listed (their names are then as expected)
	 * @return the names deleted (folders with a trailing '/'), each folder once for its whole tree
	 */
	List<String> mirror(ExpectedTree expected, boolean complete, boolean trustFolderTimes, List<String> listed)
			throws IOException {
		List<String> removed = new ArrayList<>();
		if (Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
			new Mirror(expected, complete, trustFolderTimes, removed, listed).walk(root, "", expected.root(), false);
		}
		return removed;
	}

	/** One mirror's walk. */
	private record Mirror(ExpectedTree expected, boolean complete, boolean trustFolderTimes, List<String> removed,
			List<String> listed) {

		void walk(Path dir, String rel, String key, boolean vouched) throws IOException {
			ExpectedTree.Folder folder = expected.get(key);
			String[] names = null;
			if (!vouched) {
				// the names alone (java.io): no Path made for the children that are expected, most of them
				names = dir.toFile().list();
				if (names == null) {
					throw new IOException("cannot list the folder " + dir);
				}
				listed.add(rel);
			}
			boolean onlyExpected = vouched || complete && names.length == folder.names();
			for (String name : onlyExpected ? folder.folders.toArray(new String[0]) : names) {
				String childRel = rel.isEmpty() ? name : rel + '/' + name;
				String childKey = expected.child(key, name);
				if (folder.folders.contains(name)) {
					Path child = dir.resolve(name);
					BasicFileAttributes a = attributesIfAny(child);
					if (a != null && a.isDirectory()) {
						FileTime listedAt = trustFolderTimes ? expected.listedAt(childKey) : null;
						walk(child, childRel, childKey,
								listedAt != null && ZipFormat.sameTime(a.lastModifiedTime(), listedAt));
					}
				} else if (!expected.isFile(childKey)) {
					Path child = dir.resolve(name);
					boolean isFolder = Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS);
					deleteTree(child);
					removed.add(isFolder ? childRel + "/" : childRel);
				}
			}
		}
	}

	private static BasicFileAttributes attributesIfAny(Path p) throws IOException {
		try {
			return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
		} catch (NoSuchFileException e) {
			return null;
		}
	}

	/**
	 * @return whether the file system of the tree sets a folder's time whenever a name in it is made, deleted or
	 *         renamed: the local ones known to do so (POSIX requires it; NTFS and APFS do it too), not network or
	 *         FUSE ones, which may not
	 */
	boolean folderTimesFollowNames() {
		try {
			return FOLDER_TIMES_FOLLOW_NAMES.contains(Files.getFileStore(root).type().toLowerCase(java.util.Locale.ROOT));
		} catch (IOException | SecurityException e) {
			return false;
		}
	}

	/** Deletes a file, link or folder tree without following links. */
	static void deleteTree(Path p) throws IOException {
		BasicFileAttributes a;
		try {
			a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
		} catch (NoSuchFileException e) {
			return;
		}
		if (!a.isDirectory()) {
			Files.deleteIfExists(p);
			return;
		}
		Files.walkFileTree(p, new SimpleFileVisitor<Path>() {
			@Override
			public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
				Files.deleteIfExists(file);
				return FileVisitResult.CONTINUE;
			}

			@Override
			public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
				if (exc != null) {
					throw exc;
				}
				Files.deleteIfExists(dir);
				return FileVisitResult.CONTINUE;
			}
		});
	}
}
