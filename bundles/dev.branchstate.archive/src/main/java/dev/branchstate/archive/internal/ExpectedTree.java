package dev.branchstate.archive.internal;

import java.nio.file.attribute.FileTime;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

import dev.branchstate.archive.EntryType;

/**
 * What a mirrored folder is to hold once the extraction wrote it: per folder, how many files (and links) and which
 * sub-folders. Made in one pass over the entries that looks at a folder's name only when it changes (an archive
 * holds its entries folder by folder; a file whose record shares the folder of the file before in the index's
 * pages is counted without a string made of its name), so that the mirror's walk compares each folder's listing by
 * count and names only the folders whose count differs, instead of looking up every name.
 */
final class ExpectedTree {

	/** One folder: its files and links, counted, and its sub-folders by name. */
	static final class Folder {
		int files;
		final Set<String> folders = new LinkedHashSet<>();

		/** @return how many names the folder is to hold */
		int names() {
			return files + folders.size();
		}
	}

	private final String root;
	private final Map<String, Folder> folders = new HashMap<>();
	private final Predicate<String> isFile;
	private final Function<String, FileTime> listedAt;

	/**
	 * @param prefix the prefix of the mirrored entries' names ("" or ending with '/')
	 * @param entries  the entries under it (files, links and folders), in any order, fastest folder by folder
	 * @param isFile   whether an entry of that whole name is a file or link (looked up only for folders whose count
	 *                 differs)
	 * @param listedAt for a folder of that whole name (no trailing '/'), the time at which it held exactly the names
	 *                 it is to hold, or {@code null} when no time vouches for its names
	 */
	ExpectedTree(String prefix, List<EntryRecord> entries, Predicate<String> isFile,
			Function<String, FileTime> listedAt) {
		this.root = prefix.isEmpty() ? "" : prefix.substring(0, prefix.length() - 1);
		this.isFile = isFile;
		this.listedAt = listedAt;
		folders.put(root, new Folder());
		String last = root;
		Folder current = folders.get(root);
		EntryRecord lastFile = null;
		for (EntryRecord r : entries) {
			boolean folder = r.type == EntryType.DIRECTORY;
			if (!folder && lastFile != null && r.sameFolderAs(lastFile)) {
				current.files++;
				lastFile = r;
				continue;
			}
			String name = r.name();
			int end = folder ? name.length() - 1 : name.length();
			if (end <= prefix.length()) {
				continue; // the prefix's own folder entry
			}
			if (folder) {
				folder(name.substring(0, end));
				continue;
			}
			int slash = name.lastIndexOf('/', end - 1);
			int parentEnd = Math.max(slash, 0);
			if (parentEnd != last.length() || !name.startsWith(last)) {
				last = parentEnd < root.length() ? root : name.substring(0, parentEnd);
				current = folder(last);
			}
			current.files++;
			lastFile = r;
		}
	}

	/** @return the folder of that whole name (no trailing '/'), made and named in its parent if new */
	private Folder folder(String key) {
		Folder f = folders.get(key);
		if (f == null) {
			f = new Folder();
			folders.put(key, f);
			int slash = key.lastIndexOf('/');
			String parent = slash < root.length() ? root : key.substring(0, slash);
			folder(parent).folders.add(key.substring(slash + 1));
		}
		return f;
	}

	/** @return the whole name of the mirrored root folder, without trailing '/' ("" for the archive's root) */
	String root() {
		return root;
	}

	/** @return the expected folder of that whole name (no trailing '/'), or {@code null} */
	Folder get(String key) {
		return folders.get(key);
	}

	/**
	 * @return the time at which the folder of that whole name held exactly the names it is to hold: a folder that has
	 *         it still holds them (a change to its names changes its time), or {@code null}
	 */
	FileTime listedAt(String key) {
		return listedAt.apply(key);
	}

	/** @return whether a file or link of that whole name is expected */
	boolean isFile(String key) {
		return isFile.test(key);
	}

	/** @return the whole name of {@code child} in folder {@code key} */
	String child(String key, String child) {
		return key.isEmpty() ? child : key + '/' + child;
	}
}
