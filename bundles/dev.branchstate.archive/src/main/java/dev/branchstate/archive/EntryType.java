package dev.branchstate.archive;

/** The kind of an archive entry. */
public enum EntryType {
	/** A regular file. */
	FILE,
	/** A directory (its name ends with {@code /}). */
	DIRECTORY,
	/** A symbolic link; its content is the link target. */
	SYMLINK
}
