package dev.branchstate.core.internal.service;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicLong;

import dev.branchstate.archive.ArchiveReader;
import dev.branchstate.archive.ExtractOptions;
import dev.branchstate.archive.KnownContent;
import dev.branchstate.core.StateInfo;

/**
 * What a restore knows of the derived files on disk before it looks at them: the entries of the repository's state
 * saved or restored last, which described those files then ({@link ExtractOptions#withKnownFiles}). A file whose
 * size and time are still those of its entry there holds that entry's content: its plan compares the two entries'
 * CRC-32s instead of reading it. Two branches built at different times hold most class files with the same bytes
 * and other times; without this, each restore of one over the other would read all of them again.
 * <p>
 * The archive is opened only once a restore has asked about {@link #ASKS_BEFORE_OPENING} files (across all its
 * plans), so that a restore where few files have another time (most: the exact one has none) reads those few instead
 * of parsing a second central directory. Opened, it keeps no index of the other archive: its central directory is
 * read a chunk at a time into 20 bytes per entry of the restored one ({@link ArchiveReader#knownContentOf}). Until
 * then, and when it cannot be opened (deleted meanwhile, damaged), it knows nothing: the files are read, as without
 * it; a restore of that state will say what is wrong with it.
 */
public final class KnownFiles implements KnownContent, AutoCloseable {

	/**
	 * Files asked about (of their entry's size and another time, each to be read otherwise) before the archive is
	 * opened. Opening parses the other state's central directory: at 200,000 entries ~0.5 s in a freshly started IDE,
	 * about what reading 100,000 such files from the page cache takes on 2 cores (202,496 files, 2.9 GB, took ~1 s on
	 * the scale benchmark's workspace), far fewer from a disk. The restore of a branch over another's build asks
	 * about nearly every file; one where a few files differ, about those few.
	 */
	static final int ASKS_BEFORE_OPENING = 10_000;
	/** System property that sets {@link #ASKS_BEFORE_OPENING} otherwise (read at each restore; tests set it). */
	public static final String ASKS_BEFORE_OPENING_PROPERTY = //
			"dev.branchstate.knownFilesAsksBeforeOpening"; //$NON-NLS-1$

	private final Path archive;
	private final ArchiveReader restored;
	private final long asksBeforeOpening = Long.getLong(ASKS_BEFORE_OPENING_PROPERTY, ASKS_BEFORE_OPENING)
			.longValue();
	private final AtomicLong asked = new AtomicLong();
	private volatile KnownContent content;
	private volatile boolean unreadable;
	private boolean closed;

	private KnownFiles(Path archive, ArchiveReader restored) {
		this.archive = archive;
		this.restored = restored;
	}

	/**
	 * @param states        the repository's states
	 * @param restoredState the state being restored
	 * @param restored      its archive, open: what the other state knows is kept per entry of it
	 *                      ({@link ArchiveReader#knownContentOf})
	 * @return the entries of the state of {@code states} saved or restored last, other than {@code restoredState}
	 */
	static Optional<KnownFiles> lastUsed(List<StateInfo> states, StateInfo restoredState, ArchiveReader restored) {
		return states.stream().filter(s -> !s.commitId().equals(restoredState.commitId()))
				.filter(s -> Files.isRegularFile(s.archive())).max(Comparator.comparing(StateInfo::lastUsed))
				.map(s -> new KnownFiles(s.archive(), restored));
	}

	@Override
	public OptionalInt crc32(String name, long size, FileTime lastModified) {
		KnownContent c = content;
		if (c == null) {
			if (asked.incrementAndGet() <= asksBeforeOpening) {
				return OptionalInt.empty();
			}
			c = open();
			if (c == null) {
				return OptionalInt.empty();
			}
		}
		return c.crc32(name, size, lastModified);
	}

	private synchronized KnownContent open() {
		if (content == null && !unreadable && !closed) {
			try {
				content = restored.knownContentOf(archive);
			} catch (IOException | RuntimeException e) {
				unreadable = true;
			}
		}
		return content;
	}

	@Override
	public synchronized void close() {
		closed = true;
		content = null;
	}
}
