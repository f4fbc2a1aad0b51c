package dev.branchstate.archive;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Reads one state archive. The central directory is read once when the reader is opened and kept as an index;
 * all methods are thread-safe and positional (no shared file pointer).
 */
public interface ArchiveReader extends AutoCloseable {

	/** @return the archive file */
	Path path();

	/** @return all entries in central-directory order */
	List<ArchiveEntry> entries();

	/** @return the entries whose name starts with {@code prefix}, in central-directory order */
	List<ArchiveEntry> entries(String prefix);

	/**
	 * @return how many file entries have a name that starts with {@code prefix} (the size of
	 *         {@code entries(prefix)}'s files, without making an entry of each)
	 */
	long fileCount(String prefix);

	/**
	 * Reads what archive {@code other} knows of the files of this one, for {@link ExtractOptions#withKnownFiles}: for
	 * each file entry of this archive, the size, time and CRC-32 of {@code other}'s file entry of the same name. Keeps
	 * 20 bytes per entry of this archive and no index of {@code other}, whose central directory is read a chunk at a
	 * time and checked against the checksum its writer recorded.
	 *
	 * @throws ArchiveException naming {@code other} when it is not an archive of this engine or its central directory
	 *             is damaged
	 */
	KnownContent knownContentOf(Path other) throws IOException;

	/** @return the entry with exactly this name */
	Optional<ArchiveEntry> entry(String name);

	/**
	 * Streams the uncompressed content of one entry (the target of a symbolic link). Size and CRC-32 are checked
	 * at the end of the data; a mismatch throws {@link ArchiveException} from {@code read}.
	 */
	InputStream openStream(String name) throws IOException;

	/** Reads one entry into memory; refuses entries larger than {@code maxSize}. */
	byte[] readAllBytes(String name, int maxSize) throws IOException;

	/**
	 * Extracts all entries (or those under {@link ExtractOptions#prefix()}, with the prefix stripped) into
	 * {@code targetDirectory}, which is created if missing. Never writes outside {@code targetDirectory}, never
	 * follows a symbolic link in it.
	 */
	ExtractResult extract(Path targetDirectory, ExtractOptions options) throws IOException;

	/**
	 * Reads every file and link entry whose name starts with one of {@code prefixes} to its end, checking its size
	 * and CRC-32 (each frame's for a chunked entry), with the reads, workers, limits and cancellation of
	 * {@link #extract}; writes nothing. A restore calls it first so that a damaged archive is refused before anything
	 * on disk changes. Prefix, differential and mirror settings of {@code options} do not apply. The archive must have
	 * been written by this engine: its central directory (checked against the CRC-32 the writer recorded in the
	 * archive's comment when it was opened) and every local header (checked against its central directory record,
	 * directories' too) are part of what is verified, so that damage anywhere in the archive is found.
	 *
	 * @throws ArchiveException naming the archive, the first damaged entry found and the offset
	 */
	void verify(List<String> prefixes, ExtractOptions options) throws IOException;

	/**
	 * As {@link #verify(List, ExtractOptions)}, but leaves out the file entries that one of {@code plans} found
	 * already identical in its target, and the folder entries under a plan's prefix: an extraction with those plans
	 * never reads them (a folder is made from its central directory record). What a restore checks before writing is
	 * then what it will write, and its cost follows the change, not the size of the state.
	 */
	void verify(List<String> prefixes, Collection<ExtractPlan> plans, ExtractOptions options) throws IOException;

	/**
	 * Finds what a differential extraction of the entries under {@link ExtractOptions#prefix()} into
	 * {@code targetDirectory} would write, with a stat of each target file (and a CRC-32 of those whose time alone
	 * differs), on the options' workers, cancelled through them. Reads no entry data and writes nothing.
	 */
	ExtractPlan plan(Path targetDirectory, ExtractOptions options) throws IOException;

	/** Idempotent. */
	@Override
	void close();
}
