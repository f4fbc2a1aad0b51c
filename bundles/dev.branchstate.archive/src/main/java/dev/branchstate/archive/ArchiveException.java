package dev.branchstate.archive;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A state archive could not be read or written: the archive is truncated, corrupt or hostile, or the data
 * being written or extracted failed. The message and the getters name the archive, the entry (if known) and the
 * byte offset in the archive (if known) where the problem was found.
 */
public class ArchiveException extends IOException {

	private static final long serialVersionUID = 1L;

	private final transient Path archive;
	private final String entry;
	private final long offset;

	/**
	 * @param message what went wrong, without the archive/entry/offset (they are appended)
	 * @param archive the archive file, may be {@code null}
	 * @param entry the entry name, may be {@code null}
	 * @param offset the offset in the archive, or {@code -1} if unknown
	 * @param cause the cause, may be {@code null}
	 */
	public ArchiveException(String message, Path archive, String entry, long offset, Throwable cause) {
		super(format(message, archive, entry, offset), cause);
		this.archive = archive;
		this.entry = entry;
		this.offset = offset;
	}

	public ArchiveException(String message, Path archive, String entry, long offset) {
		this(message, archive, entry, offset, null);
	}

	private static String format(String message, Path archive, String entry, long offset) {
		StringBuilder b = new StringBuilder(message);
		b.append(" [archive ").append(archive);
		if (entry != null) {
			b.append(", entry '").append(entry).append('\'');
		}
		if (offset >= 0) {
			b.append(", offset ").append(offset);
		}
		return b.append(']').toString();
	}

	/** @return the archive file, or {@code null} if not known */
	public Path getArchive() {
		return archive;
	}

	/** @return the entry name, or {@code null} if the problem is not tied to one entry */
	public String getEntry() {
		return entry;
	}

	/** @return the byte offset in the archive, or {@code -1} if not known */
	public long getOffset() {
		return offset;
	}
}
