package dev.branchstate.archive;

import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;

/**
 * Options of {@link Archives#newWriter(Path, WriteOptions)}. Immutable; each {@code withX} returns a copy.
 */
public final class WriteOptions {

	/** Default zstd level. */
	public static final int DEFAULT_LEVEL = 3;
	/** Default size of the independent zstd frames a large entry is cut into. */
	public static final int DEFAULT_CHUNK_SIZE = 1 << 21;

	private int level = DEFAULT_LEVEL;
	private int workers = Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), 16));
	private Executor executor;
	private int chunkSize = DEFAULT_CHUNK_SIZE;
	private int buffers;
	private Path previous;
	private boolean sharing;
	private ArchiveProgress progress;
	private BooleanSupplier canceled = () -> false;
	private boolean force = true;

	private WriteOptions() {
	}

	public static WriteOptions defaults() {
		return new WriteOptions();
	}

	private WriteOptions copy() {
		WriteOptions o = new WriteOptions();
		o.level = level;
		o.workers = workers;
		o.executor = executor;
		o.chunkSize = chunkSize;
		o.buffers = buffers;
		o.previous = previous;
		o.sharing = sharing;
		o.progress = progress;
		o.canceled = canceled;
		o.force = force;
		return o;
	}

	/**
	 * zstd compression level (1..22, negative levels are the fast modes); default 3. Inputs of 64 kB or more whose
	 * bytes look already compressed (7.5 bits of entropy per byte or more: jars, images) are compressed at level 1
	 * when this is higher: there a stronger level gains a few tenths of a percent for several times the CPU.
	 */
	public WriteOptions withLevel(int zstdLevel) {
		WriteOptions o = copy();
		o.level = zstdLevel;
		return o;
	}

	/** Number of worker threads the engine starts when no executor is given; default: available processors. */
	public WriteOptions withWorkers(int count) {
		if (count < 1) {
			throw new IllegalArgumentException("workers < 1: " + count);
		}
		WriteOptions o = copy();
		o.workers = count;
		return o;
	}

	/**
	 * Runs compression tasks on the given executor instead of engine-owned threads; the engine never shuts it
	 * down. {@link #withWorkers(int)} still sizes the buffers (parallelism expected from the executor).
	 */
	public WriteOptions withExecutor(Executor value) {
		WriteOptions o = copy();
		o.executor = value;
		return o;
	}

	/**
	 * Entries larger than this are cut into independent zstd frames of this size; 64 KiB..16 MiB (readers decode
	 * frames up to 16 MiB in parallel).
	 */
	public WriteOptions withChunkSize(int bytes) {
		if (bytes < (64 << 10) || bytes > (16 << 20)) {
			throw new IllegalArgumentException("chunk size out of range: " + bytes);
		}
		WriteOptions o = copy();
		o.chunkSize = bytes;
		return o;
	}

	/**
	 * Number of chunk buffers in flight (bounds memory to about {@code 2 x buffers x chunkSize}); default
	 * {@code 2 x workers + 2}.
	 */
	public WriteOptions withBuffers(int count) {
		WriteOptions o = copy();
		o.buffers = count;
		return o;
	}

	/**
	 * Differential save: the previous archive of the same tree. A file added from disk whose name, size,
	 * modification time and mode equal those of an entry of the previous archive is copied as compressed bytes
	 * from it. {@code null} (default) disables.
	 */
	public WriteOptions withPrevious(Path previousArchive) {
		WriteOptions o = copy();
		o.previous = previousArchive;
		return o;
	}

	/**
	 * With a {@link #withPrevious previous} archive: its unchanged entries are <em>shared</em>, not copied. The new
	 * archive's file then holds only the entries that changed and its central directory; it continues the previous
	 * archive's files, which it links beside itself as {@code <target>.1}, {@code <target>.2}, … (hard links: deleting
	 * either archive leaves the other whole). A reader opens such an archive as one (see {@link Archives#files}).
	 * It continues only the first of those files, as many as hold most of the entries: the entries it shares from
	 * the files after them (few, by the rule) are copied, so a chain does not grow with every write; at most 8 files
	 * are continued, and never a run of files less than half of whose bytes are still entries (the rest replaced
	 * ones). The writer copies everything, writing a self-contained archive, when no such run is left or the file
	 * system cannot link. Default false.
	 */
	public WriteOptions withSharing(boolean value) {
		WriteOptions o = copy();
		o.sharing = value;
		return o;
	}

	/** Counters to poll and a cancel flag; may be {@code null}. */
	public WriteOptions withProgress(ArchiveProgress value) {
		WriteOptions o = copy();
		o.progress = value;
		return o;
	}

	/** Polled by the engine; when it returns true the write is aborted with {@link ArchiveCanceledException}. */
	public WriteOptions withCancel(BooleanSupplier value) {
		WriteOptions o = copy();
		o.canceled = Objects.requireNonNull(value);
		return o;
	}

	/** Whether the archive is forced to the device before the atomic rename; default true. */
	public WriteOptions withForce(boolean value) {
		WriteOptions o = copy();
		o.force = value;
		return o;
	}

	public int level() {
		return level;
	}

	public int workers() {
		return workers;
	}

	public Executor executor() {
		return executor;
	}

	public int chunkSize() {
		return chunkSize;
	}

	public int buffers() {
		return buffers > 0 ? buffers : 2 * workers + 2;
	}

	public Path previous() {
		return previous;
	}

	public boolean sharing() {
		return sharing;
	}

	public ArchiveProgress progress() {
		return progress;
	}

	public BooleanSupplier cancel() {
		return canceled;
	}

	public boolean force() {
		return force;
	}
}
