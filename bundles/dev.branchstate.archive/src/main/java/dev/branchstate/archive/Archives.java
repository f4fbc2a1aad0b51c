package dev.branchstate.archive;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;

import dev.branchstate.archive.internal.ArchiveBytes;
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

	/**
	 * Holds {@code target}'s name, until closed, for a caller that has a writer create the file and then records it
	 * elsewhere (a catalog): a locked file beside it, named like a writer's temporary file. With it, {@link #isHeld}
	 * tells a file that a live process, this one or another, will still record from one that a killed process left.
	 */
	public static Closeable hold(Path target) throws IOException {
		Path file = WriterTemporaryFile.beside(target);
		FileChannel channel = WriterTemporaryFile.createLocked(file);
		return () -> WriterTemporaryFile.release(file, channel);
	}

	/**
	 * @return whether a running writer or a {@link #hold} of a live process holds {@code target}'s name; the files of
	 *         gone ones beside it are deleted on the way
	 */
	public static boolean isHeld(Path target) throws IOException {
		return WriterTemporaryFile.isHeld(target);
	}

	private static final Pattern CONTINUED = Pattern.compile("(.+)\\.[1-9][0-9]{0,2}"); //$NON-NLS-1$

	/**
	 * @return the files the archive at {@code archive} is made of: the files it continues, when it was written
	 *         {@linkplain WriteOptions#withSharing sharing} a previous archive's entries (links beside it named
	 *         {@code <archive>.1}, {@code <archive>.2}, …), then its own. Deleting the archive is deleting them all;
	 *         what they take on disk is shared with the archives that link the same files.
	 */
	public static List<Path> files(Path archive) throws IOException {
		return ArchiveBytes.files(archive);
	}

	/**
	 * @return the archive whose continued file {@code file} would be by its name ({@code <archive>.<n>}), empty for
	 *         any other name
	 */
	public static Optional<Path> continuedBy(Path file) {
		Matcher m = CONTINUED.matcher(file.getFileName().toString());
		return m.matches() ? Optional.of(file.resolveSibling(m.group(1))) : Optional.empty();
	}

	/**
	 * Opens the bytes of an archive as one read-only channel, the files it continues included: what a copy of the
	 * archive as one file holds (that copy reads as the same archive, with no link beside it).
	 */
	public static FileChannel openBytes(Path archive) throws IOException {
		return ArchiveBytes.open(archive);
	}

	/** Opens an archive and reads its central directory. */
	public static ArchiveReader open(Path archive) throws IOException {
		return IndexedArchiveReader.open(archive);
	}

	/**
	 * Loads the compression library and makes its binding, as the first archive read or written would: on JDK 22+
	 * zstd-jni binds its native functions through the foreign function API, which takes some 250 ms once per JVM.
	 * For a caller that can do it ahead of time, in the background (an IDE starting), so that the first branch switch
	 * does not wait for it. Idempotent; any failure is left for the first real use to report.
	 */
	public static void prepare() {
		try (ZstdDecompressCtx d = new ZstdDecompressCtx(); ZstdCompressCtx c = new ZstdCompressCtx()) {
			// made and freed: the classes, the native library and its binding stay
		} catch (RuntimeException | LinkageError e) {
			// reported by the first archive read or written
		}
	}
}
