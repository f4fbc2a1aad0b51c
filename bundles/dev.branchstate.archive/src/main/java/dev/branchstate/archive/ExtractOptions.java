package dev.branchstate.archive;

import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;

/**
 * Options of {@link ArchiveReader#extract(java.nio.file.Path, ExtractOptions)}. Immutable; each {@code withX}
 * returns a copy.
 */
public final class ExtractOptions {

	private String prefix = "";
	private boolean differential;
	private boolean verifyContent;
	private boolean mirror;
	private boolean skipUnsafeLinks;
	private boolean emptyTargetsCheckedWhileWritten;
	private int workers = Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), 16));
	private Executor executor;
	private int buffers;
	private ArchiveProgress progress;
	private BooleanSupplier canceled = () -> false;
	private long maxTotalSize = Long.MAX_VALUE;
	private long maxRatio = 1_000_000;
	private ExtractPlan plan;
	private KnownContent knownFiles;

	private ExtractOptions() {
	}

	public static ExtractOptions defaults() {
		return new ExtractOptions();
	}

	private ExtractOptions copy() {
		ExtractOptions o = new ExtractOptions();
		o.prefix = prefix;
		o.differential = differential;
		o.verifyContent = verifyContent;
		o.mirror = mirror;
		o.skipUnsafeLinks = skipUnsafeLinks;
		o.emptyTargetsCheckedWhileWritten = emptyTargetsCheckedWhileWritten;
		o.workers = workers;
		o.executor = executor;
		o.buffers = buffers;
		o.progress = progress;
		o.canceled = canceled;
		o.maxTotalSize = maxTotalSize;
		o.maxRatio = maxRatio;
		o.plan = plan;
		o.knownFiles = knownFiles;
		return o;
	}

	/**
	 * Extracts only the entries whose name starts with this prefix (e.g. {@code "markers/myproject/"}), written
	 * with the prefix stripped. Default {@code ""}: everything.
	 */
	public ExtractOptions withPrefix(String value) {
		ExtractOptions o = copy();
		o.prefix = Objects.requireNonNull(value);
		return o;
	}

	/**
	 * Differential extraction: a regular file already in the target with the same content is not rewritten.
	 * Identity: the size must be equal; then equal modification time (to 100 ns, as the engine sets it on
	 * extraction) counts as identical, otherwise the file's CRC-32 is computed and compared with the entry's (see
	 * {@link #withKnownFiles} for a way to know it without reading the file). A file found identical is left as it
	 * is, its time included.
	 */
	public ExtractOptions withDifferential(boolean value) {
		ExtractOptions o = copy();
		o.differential = value;
		return o;
	}

	/** With differential extraction: always compare CRC-32 of content, never trust equal size+mtime. */
	public ExtractOptions withVerifyContent(boolean value) {
		ExtractOptions o = copy();
		o.verifyContent = value;
		return o;
	}

	/**
	 * Mirror mode: after extraction, files and directories in the target directory that are absent from the
	 * extracted entries are removed (symbolic links are removed, never followed).
	 */
	public ExtractOptions withMirror(boolean value) {
		ExtractOptions o = copy();
		o.mirror = value;
		return o;
	}

	/**
	 * A symbolic link whose target is absolute or leads outside the target directory is never created. By
	 * default such a link fails the extraction with {@link ArchiveException}; with {@code true} it is skipped
	 * (counted in {@link ExtractResult#skipped()}).
	 */
	public ExtractOptions withSkipUnsafeLinks(boolean value) {
		ExtractOptions o = copy();
		o.skipUnsafeLinks = value;
		return o;
	}

	public ExtractOptions withWorkers(int count) {
		if (count < 1) {
			throw new IllegalArgumentException("workers < 1: " + count);
		}
		ExtractOptions o = copy();
		o.workers = count;
		return o;
	}

	/** Runs tasks on the given executor; the engine never shuts it down. */
	public ExtractOptions withExecutor(Executor value) {
		ExtractOptions o = copy();
		o.executor = value;
		return o;
	}

	/** Read-ahead: number of buffers in flight; default {@code 2 x workers + 2}. */
	public ExtractOptions withBuffers(int count) {
		ExtractOptions o = copy();
		o.buffers = count;
		return o;
	}

	public ExtractOptions withProgress(ArchiveProgress value) {
		ExtractOptions o = copy();
		o.progress = value;
		return o;
	}

	public ExtractOptions withCancel(BooleanSupplier value) {
		ExtractOptions o = copy();
		o.canceled = Objects.requireNonNull(value);
		return o;
	}

	/** Zip-bomb guard: the sum of the declared sizes of the extracted entries may not exceed this. */
	public ExtractOptions withMaxTotalSize(long bytes) {
		ExtractOptions o = copy();
		o.maxTotalSize = bytes;
		return o;
	}

	/**
	 * Zip-bomb guard: an entry larger than 1 MiB may not declare more than {@code ratio} times its compressed
	 * size. Default 1,000,000.
	 */
	public ExtractOptions withMaxRatio(long ratio) {
		ExtractOptions o = copy();
		o.maxRatio = ratio;
		return o;
	}

	/**
	 * Writes what a {@link ArchiveReader#plan} of the same target and prefix found to differ, and nothing else,
	 * without looking at the target again (the other file entries count as skipped; mirror mode keeps them). The
	 * extraction refuses a plan made for another target or prefix. Default {@code null}: no plan.
	 */
	public ExtractOptions withPlan(ExtractPlan value) {
		ExtractOptions o = copy();
		o.plan = value;
		return o;
	}

	/**
	 * For {@link ArchiveReader#verify(java.util.List, java.util.Collection, ExtractOptions)}: the file entries of a
	 * plan whose target was empty ({@link ExtractPlan#emptyTarget()}) are not read here. The extraction checks each
	 * entry before it writes it, so a damaged one ends it leaving in such a target only files it did not hold: the
	 * caller that removes them on failure gets the target back as it was, having read the archive once instead of
	 * twice. Default false.
	 */
	public ExtractOptions withEmptyTargetsCheckedWhileWritten(boolean value) {
		ExtractOptions o = copy();
		o.emptyTargetsCheckedWhileWritten = value;
		return o;
	}

	public boolean emptyTargetsCheckedWhileWritten() {
		return emptyTargetsCheckedWhileWritten;
	}

	/**
	 * What is known of the target's files, for a differential extraction and a plan: for an entry's full name, what
	 * the entry that described the file at its place said of it when another archive was written from the target or
	 * extracted into it (the state saved or restored last, say). A target file of the size and time of that entry is
	 * taken to hold its content, as a file of the extracted entry's own size and time is taken to hold the extracted
	 * entry's: it is then identical if the two CRC-32s are, and differs otherwise, without being read, and its
	 * time is left as it is. Two states saved from builds of the same sources at different times thus restore over
	 * each other by their central directories alone. Called from the extraction's workers, only for files of the
	 * entry's size and another time (never with {@link #withVerifyContent}); a lookup may open the other archive
	 * then ({@link ArchiveReader#knownContentOf}), or answer empty until that is worth it (the file is then read).
	 * Default {@code null}: nothing known.
	 */
	public ExtractOptions withKnownFiles(KnownContent value) {
		ExtractOptions o = copy();
		o.knownFiles = value;
		return o;
	}

	public KnownContent knownFiles() {
		return knownFiles;
	}

	public ExtractPlan plan() {
		return plan;
	}

	public String prefix() {
		return prefix;
	}

	public boolean differential() {
		return differential;
	}

	public boolean verifyContent() {
		return verifyContent;
	}

	public boolean mirror() {
		return mirror;
	}

	public boolean skipUnsafeLinks() {
		return skipUnsafeLinks;
	}

	public int workers() {
		return workers;
	}

	public Executor executor() {
		return executor;
	}

	public int buffers() {
		return buffers > 0 ? buffers : 2 * workers + 2;
	}

	public ArchiveProgress progress() {
		return progress;
	}

	public BooleanSupplier cancel() {
		return canceled;
	}

	public long maxTotalSize() {
		return maxTotalSize;
	}

	public long maxRatio() {
		return maxRatio;
	}
}
