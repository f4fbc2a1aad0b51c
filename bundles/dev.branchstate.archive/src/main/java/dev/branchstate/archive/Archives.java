package dev.branchstate.archive;

import java.io.IOException;
import java.nio.file.Path;

import dev.branchstate.archive.internal.ParallelArchiveWriter;
import dev.branchstate.archive.internal.IndexedArchiveReader;

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

	/** Opens an archive and reads its central directory. */
	public static ArchiveReader open(Path archive) throws IOException {
		return IndexedArchiveReader.open(archive);
	}
}
