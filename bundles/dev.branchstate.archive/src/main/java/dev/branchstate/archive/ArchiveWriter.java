package dev.branchstate.archive;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;

/**
 * Writes one state archive. Entries are compressed in parallel; the archive is written under a temporary name
 * in the target's directory and only appears under its final name when {@link #commit()} succeeds. Any failure,
 * cancellation, {@link #abort()} or {@link #close()} without commit deletes the temporary file.
 * <p>
 * The {@code add} methods are called from one thread (the caller's); they return as soon as the data is handed
 * to the workers (files) or read (streams, channels, bytes), and throw the first error of any worker.
 * Entry names are relative, {@code /}-separated, without {@code .} or {@code ..} segments, unique.
 */
public interface ArchiveWriter extends AutoCloseable {

	/** Default mode of files added from memory or streams. */
	int DEFAULT_FILE_MODE = 0644;
	/** Default mode of directories added by name. */
	int DEFAULT_DIRECTORY_MODE = 0755;

	/** Adds a regular file (or a symbolic link, stored as a link) under the given entry name. */
	void addFile(Path source, String name) throws IOException;

	/**
	 * Adds a directory tree: every directory, regular file and symbolic link below {@code root} selected by
	 * {@code filter}, named {@code prefix + relative path}. Symbolic links are stored as links and never
	 * followed. {@code prefix} is {@code ""} or ends with {@code /}.
	 */
	void addTree(Path root, String prefix, TreeFilter filter) throws IOException;

	/** Adds a directory entry ({@code name} ends with {@code /} or one is appended). */
	void addDirectory(String name, int mode, FileTime lastModified) throws IOException;

	/** Adds in-memory data; the array must not be changed until {@link #commit()}. */
	void addBytes(String name, byte[] data, int mode, FileTime lastModified) throws IOException;

	/** Adds data read from the channel to its end (on the calling thread); the channel is not closed. */
	void addChannel(String name, ReadableByteChannel source, int mode, FileTime lastModified) throws IOException;

	/** Adds data read from the stream to its end (on the calling thread); the stream is not closed. */
	void addStream(String name, InputStream source, int mode, FileTime lastModified) throws IOException;

	/**
	 * Waits for the workers, writes the central directory, forces and atomically renames the archive to its
	 * final name. The writer is closed afterwards.
	 */
	WriteResult commit() throws IOException;

	/** Abandons the archive: stops the workers, deletes the temporary file. Idempotent; never throws. */
	void abort();

	/** Aborts unless committed; releases threads, buffers and zstd contexts. Idempotent. */
	@Override
	void close();
}
