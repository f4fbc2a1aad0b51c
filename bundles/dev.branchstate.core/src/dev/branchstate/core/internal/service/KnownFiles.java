package dev.branchstate.core.internal.service;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
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
 * The archive is opened at the first lookup, so that a restore whose files all have their entry's time (an exact
 * restore) does not parse a second central directory. One that cannot be opened (deleted meanwhile, damaged) knows
 * nothing: the files are read, as without it; a restore of it will say what is wrong with it.
 */
public final class KnownFiles implements Function<String, Optional<ArchiveEntry>>, AutoCloseable {

	/**
	 * The bytes of the files to be read (of their entry's size and another time) from which a plan asks instead.
	 * The first lookup parses the other state's central directory: at 200,000 entries ~0.5 s in a freshly started
	 * IDE, about what reading 1.4 GB of such files from the page cache takes on 2 cores (2.9 GB took ~1 s on the
	 * scale benchmark's workspace), and less than reading much less from a disk. Below it, the few files are read.
	 */
	static final long WORTH_FROM_BYTES = 256L << 20;
	/** System property that sets {@link #WORTH_FROM_BYTES} otherwise (read at each restore; tests set it to 0). */
	public static final String WORTH_FROM_BYTES_PROPERTY = "dev.branchstate.knownFilesFromBytes"; //$NON-NLS-1$

	/** @return the bytes to be read from which a plan asks the known files */
	static long worthFromBytes() {
		return Long.getLong(WORTH_FROM_BYTES_PROPERTY, WORTH_FROM_BYTES).longValue();
	}

	private final Path archive;
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
