package dev.branchstate.archive;

import java.io.IOException;
import java.nio.file.Path;

import dev.branchstate.archive.internal.ParallelArchiveWriter;
import dev.branchstate.archive.internal.IndexedArchiveReader;
import dev.branchstate.archive.internal.WriterTemporaryFile;

/** Entry point of the engine: creates writers and opens readers. */
public final class Archives {

	private Archives() {
	}

	/**
	 * Starts writing an archive that will appear at {@code target} on {@link ArchiveWriter#commit()}. The parent
	 * directory must exist; an existing file at {@code target} is replaced atomically on commit.
	 */
	public static ArchiveWriter newWriter(Path target, WriteOptions options) throws IOException {
		return new ParallelArchiveWriter(target, options);
	}

	/**
	 * Deletes {@code file} if it is the temporary file of a writer that is gone: killed, or crashed before it could
	 * delete it. A writer holds a lock on its temporary file until it commits or aborts, and the operating system
	 * releases the locks of a process that dies, so the file of a writer still running, in this process or another,
	 * is never deleted, however old.
	 *
	 * @return whether the file was deleted; {@code false} as well for a file that is not a writer's temporary file
	 */
	public static boolean deleteIfAbandoned(Path file) throws IOException {
		return WriterTemporaryFile.deleteIfAbandoned(file);
	}

	/** Opens an archive and reads its central directory. */
	public static ArchiveReader open(Path archive) throws IOException {
		return IndexedArchiveReader.open(archive);
	}
}
