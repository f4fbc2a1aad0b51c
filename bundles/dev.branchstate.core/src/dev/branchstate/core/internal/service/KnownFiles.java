package dev.branchstate.core.internal.service;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import dev.branchstate.archive.ArchiveEntry;
import dev.branchstate.archive.ArchiveReader;
import dev.branchstate.archive.Archives;
import dev.branchstate.archive.ExtractOptions;
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
 * of parsing a second central directory. Until then, and when it cannot be opened (deleted meanwhile, damaged), it
 * knows nothing: the files are read, as without it; a restore of that state will say what is wrong with it.
 */
public final class KnownFiles implements Function<String, Optional<ArchiveEntry>>, AutoCloseable {

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
	private final long asksBeforeOpening = Long.getLong(ASKS_BEFORE_OPENING_PROPERTY, ASKS_BEFORE_OPENING)
			.longValue();
	private final AtomicLong asked = new AtomicLong();
	private volatile ArchiveReader reader;
	private volatile boolean unreadable;
	private boolean closed;

	private KnownFiles(Path archive) {
		this.archive = archive;
	}

	/**
	 * @param states   the repository's states
	 * @param restored the state being restored
	 * @return the entries of the state of {@code states} saved or restored last, other than {@code restored}
	 */
	static Optional<KnownFiles> lastUsed(List<StateInfo> states, StateInfo restored) {
		return states.stream().filter(s -> !s.commitId().equals(restored.commitId()))
				.filter(s -> Files.isRegularFile(s.archive())).max(Comparator.comparing(StateInfo::lastUsed))
				.map(s -> new KnownFiles(s.archive()));
	}

	@Override
	public Optional<ArchiveEntry> apply(String name) {
		ArchiveReader r = reader;
		if (r == null) {
			if (asked.incrementAndGet() <= asksBeforeOpening) {
				return Optional.empty();
			}
			r = open();
			if (r == null) {
				return Optional.empty();
			}
		}
		return r.entry(name);
	}

	private synchronized ArchiveReader open() {
		if (reader == null && !unreadable && !closed) {
			try {
				reader = Archives.open(archive);
			} catch (IOException | RuntimeException e) {
				unreadable = true;
			}
		}
		return reader;
	}

	@Override
	public synchronized void close() {
		closed = true;
		if (reader != null) {
			reader.close();
		}
	}
}
