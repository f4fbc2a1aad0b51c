package dev.branchstate.archive.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import com.github.luben.zstd.Zstd;

import dev.branchstate.archive.ArchiveCanceledException;
import dev.branchstate.archive.ArchiveEntry;
import dev.branchstate.archive.ArchiveException;
import dev.branchstate.archive.ArchiveProgress;
import dev.branchstate.archive.ArchiveWriter;
import dev.branchstate.archive.EntryType;
import dev.branchstate.archive.TreeFilter;
import dev.branchstate.archive.WriteOptions;
import dev.branchstate.archive.WriteResult;

/**
 * The parallel writer. The calling thread enumerates entries (a walk of each tree added), takes a buffer slot
 * (back-pressure: at most {@link WriteOptions#buffers()} slots exist) and hands a task to the workers. A worker reads
 * its input (positional reads for files) and compresses it into the slot's direct buffer with its own zstd context
 * ({@link EntryCompressor}), then deposits the unit with the {@link ArchiveOutput}, which hands out file regions in
 * submission order and writes each with positional writes. Files unchanged since the {@link PreviousArchive} are
 * shared or copied from it instead.
 */
public final class ParallelArchiveWriter implements ArchiveWriter {

	private static final int MAX_BATCH = 512;
	private static final long MAX_RUN_BYTES = 64L << 20;
	private static final int MAX_RUN_ENTRIES = 4096;

	private final Path target;
	private final WriteOptions options;
	private final ArchiveProgress progress;
	private final WorkerPool<Compressors> workers;
	private final int chunkSize;
	private final Buffers<Slot> slots;
	/** The previous archive reused, or {@code null}. */
	private final PreviousArchive previous;
	private final ArchiveOutput output;
	private final EntryCompressor compressor;
	/** The entries in the order of the central directory; no two of the same name ({@link #names}). */
	private final List<EntryRecord> records = new ArrayList<>();
	private final AddedNames names = new AddedNames(records);
	/** Entries written from the previous archive's bytes (shared, copied, or its compressed bytes taken). */
	private final AtomicLong copied = new AtomicLong();
	private long unitCount;
	private long bytesIn;
	/** Small files waiting to be handed to a worker together (fewer hand-offs, one positional write). */
	private final List<EntryRecord> batchRecords = new ArrayList<>();
	private final List<Path> batchSources = new ArrayList<>();
	/** Per batched file, the previous archive's entry of its name and size (another time), or {@code null}. */
	private final List<EntryRecord> batchPrevious = new ArrayList<>();
	private long batchRaw;
	private long batchPacked;
	/** Unchanged entries adjacent in the previous archive: copied verbatim (local headers and data) as one region. */
	private final List<EntryRecord> runNew = new ArrayList<>();
	private final List<EntryRecord> runOld = new ArrayList<>();
	private long runStart;
	private long runEnd;
	private boolean finished;

	public ParallelArchiveWriter(Path target, WriteOptions options) throws IOException {
		this.target = target.toAbsolutePath();
		this.options = options;
		this.progress = options.progress() != null ? options.progress() : new ArchiveProgress();
		this.chunkSize = options.chunkSize();
		this.slots = new Buffers<>(options.buffers(), () -> new Slot(chunkSize));
		this.previous = PreviousArchive.open(options.previous(), this.target, options.sharing());
		try {
			this.output = new ArchiveOutput(this.target, previous, slots, progress, copied);
		} catch (IOException | RuntimeException e) {
			if (previous != null) {
				previous.deleteLinks();
				previous.close();
			}
			throw e;
		}
		this.workers = new WorkerPool<>(this.target, "archive write", options.executor(), options.workers(),
				() -> progress.isCanceled() || options.cancel().getAsBoolean(), this::newContext,
				(t, r) -> t instanceof IOException || t instanceof Error ? t
						: new ArchiveException("writing failed: " + t, target, r.name(), -1, t));
		this.compressor = new EntryCompressor(this.target, workers, previous, copied);
	}

	// ---------------------------------------------------------------- API

	@Override
	public void addFile(Path source, String name) throws IOException {
		checkState();
		BasicFileAttributes attrs = FolderScanner.readAttributes(source);
		names.single(attrs.isDirectory() && !name.endsWith("/") ? name + "/" : name);
		addPath(source, name, attrs);
	}

	@Override
	public void addTree(Path root, String prefix, TreeFilter filter) throws IOException {
		checkState();
		if (!prefix.isEmpty() && !prefix.endsWith("/")) {
			throw new IllegalArgumentException("prefix must be empty or end with '/': " + prefix);
		}
		try {
			BasicFileAttributes rootAttrs = Files.readAttributes(root, BasicFileAttributes.class);
			if (!rootAttrs.isDirectory()) {
				throw new ArchiveException("not a directory: " + root, target, prefix, -1);
			}
			long settledBefore = System.currentTimeMillis() - ZipFormat.LISTING_MARGIN_MILLIS;
			names.startTree(prefix);
			try (FolderScanner scanner = new FolderScanner(root, filter)) {
				walk(scanner, prefix, filter, settledBefore);
			} finally {
				names.endTree();
			}
		} catch (IOException | RuntimeException | Error e) {
			throw fail(e);
		}
	}

	/**
	 * Depth-first walk in name order (deterministic archives) of the folders the scanner reads ahead, in the same
	 * order: one lstat per path, links never followed. A folder whose every name the archive holds, and whose time is
	 * older than {@code settledBefore}, has its entry marked {@linkplain EntryRecord#listed listed}: its time then
	 * vouches for its names (a name made, deleted or renamed in it sets its time to the moment it happened, later).
	 *
	 * @return whether every name of the folder went into the archive
	 */
	private boolean walk(FolderScanner scanner, String prefix, TreeFilter filter, long settledBefore)
			throws IOException {
		FolderScanner.Listing listing = scanner.next();
		boolean all = true;
		for (int i = 0; i < listing.children().size(); i++) {
			Path child = listing.children().get(i);
			String rel = listing.rels().get(i);
			BasicFileAttributes attrs = listing.attributes().get(i);
			if (listing.enter()[i]) {
				String folder = prefix + rel + "/";
				names.inTree(folder);
				EntryRecord entry = addFolder(folder, attrs);
				// (its time as read before its names are: a name made while they are read makes it newer)
				entry.listed = walk(scanner, prefix, filter, settledBefore)
						&& attrs.lastModifiedTime().toMillis() < settledBefore;
			} else if ((attrs.isRegularFile() || attrs.isSymbolicLink())
					&& (filter.takesEverything() || filter.includesFile(child.getFileSystem().getPath(rel)))) {
				String name = prefix + rel;
				names.inTree(name);
				addPath(child, name, attrs);
			} else {
				all = false; // a folder the filter excludes, a file it does not include, anything else
			}
		}
		return all;
	}

	@Override
	public void addDirectory(String name, int mode, FileTime lastModified) throws IOException {
		checkState();
		try {
			names.single(name.endsWith("/") ? name : name + "/");
			EntryRecord r = newRecord(name.endsWith("/") ? name : name + "/", EntryType.DIRECTORY, mode, lastModified);
			submitDirectory(r);
		} catch (IOException | RuntimeException | Error e) {
			throw fail(e);
		}
	}

	@Override
	public void addBytes(String name, byte[] data, int mode, FileTime lastModified) throws IOException {
		checkState();
		try {
			names.single(name);
			EntryRecord r = newRecord(name, EntryType.FILE, mode, lastModified);
			if (data.length <= chunkSize) {
				Slot slot = takeSlot();
				slot.raw.clear().put(data).flip();
				bytesIn += data.length;
				progress.planned(0, data.length);
				submitSmall(r, slot, null);
			} else {
				submitStream(r, Channels.newChannel(new java.io.ByteArrayInputStream(data)));
			}
		} catch (IOException | RuntimeException | Error e) {
			throw fail(e);
		}
	}

	@Override
	public void addChannel(String name, ReadableByteChannel source, int mode, FileTime lastModified)
			throws IOException {
		checkState();
		try {
			names.single(name);
			submitStream(newRecord(name, EntryType.FILE, mode, lastModified), source);
		} catch (IOException | RuntimeException | Error e) {
			throw fail(e);
		}
	}

	@Override
	public void addStream(String name, InputStream source, int mode, FileTime lastModified) throws IOException {
		checkState();
		try {
			names.single(name);
			submitStream(newRecord(name, EntryType.FILE, mode, lastModified), Channels.newChannel(source));
		} catch (IOException | RuntimeException | Error e) {
			throw fail(e);
		}
	}

	@Override
	public WriteResult commit() throws IOException {
		checkState();
		try {
			flushBatch();
			flushCopyRun();
			output.awaitWritten(workers, unitCount);
			detachIfLittleShared();
			long cdOffset = output.end();
			long[] at = { cdOffset };
			long size = cdOffset + CentralDirectory.write(records, cdOffset,
					previous != null ? previous.continued() : List.of(), b -> {
						int n = b.remaining();
						output.write(b, at[0], null);
						at[0] += n;
					});
			if (options.force()) {
				output.force();
			}
			checkCanceled();
			output.moveToTarget();
			finished = true;
			output.close();
			release();
			// links of an archive this one replaced, beyond its own
			int own = previous != null ? previous.linkCount() : 0;
			for (int n = own + 1; Files.deleteIfExists(ArchiveBytes.linkName(target, n)); n++) {
				// deleted
			}
			return new WriteResult(records.size(), copied.get(), bytesIn, size, size - output.base());
		} catch (IOException | RuntimeException | Error e) {
			throw fail(e);
		}
	}

	/**
	 * Stops continuing the previous archive's files when this archive shares less than half of their bytes
	 * ({@link PreviousArchive#littleShared}): the entries it shares are copied into its own file after the others,
	 * every offset moves down by the continued bytes, and the links go.
	 */
	private void detachIfLittleShared() throws IOException {
		if (previous == null || !previous.littleShared(records)) {
			return;
		}
		long base = previous.base();
		long position = output.end();
		ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
		for (EntryRecord r : records) {
			if (r.localOffset < base) {
				checkCanceled();
				long from = previous.dataOffset(r);
				boolean zip64 = r.size >= ZipFormat.MAX32 || r.csize >= ZipFormat.MAX32;
				ByteBuffer header = ZipFormat.le(ByteBuffer.allocate(ZipFormat.localHeaderLength(r, zip64)));
				ZipFormat.putLocalHeader(header, 0, r, zip64);
				position += output.writeCopy(buf, header, from, position, r);
			}
		}
		for (EntryRecord r : records) {
			r.localOffset -= base;
		}
		output.stopContinuing(position);
	}

	@Override
	public void abort() {
		if (finished) {
			return;
		}
		finished = true;
		workers.fail(new ArchiveCanceledException("archive write aborted: " + target));
		output.abort();
		release();
		if (previous != null) {
			previous.deleteLinks();
		}
	}

	@Override
	public void close() {
		abort();
	}

	private void release() {
		workers.close();
		compressor.closeSources();
		slots.clear();
		if (previous != null) {
			previous.close();
		}
	}

	// ---------------------------------------------------------------- submission (calling thread)

	private void checkState() {
		if (finished) {
			throw new IllegalStateException("archive writer is closed: " + target);
		}
	}

	private IOException fail(Throwable e) {
		if (e instanceof IllegalArgumentException iae && workers.failure() == null) {
			throw iae; // API misuse detected before any state changed: the writer stays usable
		}
		Throwable first = workers.failure();
		abort();
		Throwable t = first != null ? first : e;
		if (t instanceof IOException io) {
			return io;
		}
		if (t instanceof UncheckedIOException u) {
			return u.getCause();
		}
		return new ArchiveException("writing failed: " + t, target, null, -1, t);
	}

	private void checkCanceled() throws IOException {
		workers.checkCanceled();
	}

	private EntryRecord newRecord(String name, EntryType type, int mode, FileTime mtime) throws IOException {
		checkCanceled();
		String bad = Names.problem(name, type == EntryType.DIRECTORY);
		if (bad != null) {
			throw new IllegalArgumentException("invalid entry name '" + name + "': " + bad);
		}
		return newRecord(name, name.getBytes(StandardCharsets.UTF_8), type, mode, mtime);
	}

	/** @param utf8 the name in UTF-8, the record's from now on */
	private EntryRecord newRecord(String name, byte[] utf8, EntryType type, int mode, FileTime mtime)
			throws IOException {
		if (utf8.length > 0xffff) {
			throw new IllegalArgumentException("entry name too long: " + name);
		}
		EntryRecord r = new EntryRecord(utf8, type, mode & 07777, ZipFormat.truncate(mtime));
		records.add(r);
		progress.planned(1, 0);
		return r;
	}

	/**
	 * @return a new record of a file whose name the previous archive's entry {@code p} has: its name's bytes are that
	 *         entry's (in the pages of the previous archive's index, which stays open as long as this writer), so that
	 *         a save that writes most files again (a full build) does not hold every name twice; the caller puts it in
	 *         {@code p}'s place in that index ({@link PreviousArchive#supersedeFound}), so that it does not hold every
	 *         record twice either
	 */
	private EntryRecord newRecord(EntryRecord p, int mode, FileTime mtime) {
		EntryRecord r = p.sameName(EntryType.FILE, mode & 07777, ZipFormat.toNtfs(ZipFormat.truncate(mtime)));
		records.add(r);
		progress.planned(1, 0);
		return r;
	}

	private EntryRecord addFolder(String name, BasicFileAttributes attrs) throws IOException {
		try {
			EntryRecord r = newRecord(name.endsWith("/") ? name : name + "/", EntryType.DIRECTORY,
					Modes.modeOf(attrs, DEFAULT_DIRECTORY_MODE), attrs.lastModifiedTime());
			submitDirectory(r);
			return r;
		} catch (IOException | RuntimeException | Error e) {
			throw fail(e);
		}
	}

	private void addPath(Path source, String name, BasicFileAttributes attrs) throws IOException {
		try {
			if (attrs.isDirectory()) {
				addFolder(name, attrs);
			} else if (attrs.isSymbolicLink()) {
				EntryRecord r = newRecord(name, EntryType.SYMLINK, Modes.modeOf(attrs, 0777), attrs.lastModifiedTime());
				byte[] link = Files.readSymbolicLink(source).toString().getBytes(StandardCharsets.UTF_8);
				progress.planned(0, link.length);
				bytesIn += link.length;
				Slot slot = takeSlot();
				slot.raw.clear().put(link).flip();
				submitSmall(r, slot, null);
			} else if (attrs.isRegularFile()) {
				int mode = Modes.modeOf(attrs, DEFAULT_FILE_MODE);
				long size = attrs.size();
				progress.planned(0, size);
				bytesIn += size;
				// the previous archive's entry of that name, looked up once for sharing or copying it
				byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
				EntryRecord p = previous != null ? previous.find(utf8) : null;
				if (p != null && share(p, mode, attrs.lastModifiedTime(), size)) {
					return;
				}
				EntryRecord r = p != null ? newRecord(p, mode, attrs.lastModifiedTime())
						: newRecord(name, utf8, EntryType.FILE, mode, attrs.lastModifiedTime());
				if (p != null) {
					previous.supersedeFound(r); // (p is held from now on by what reads its bytes, if any)
				}
				if (p != null && submitCopy(r, p, size)) {
					return;
				}
				if (size <= chunkSize) {
					addToBatch(r, source, size, p != null && PreviousArchive.mayHoldTheSameBytes(p, size) ? p : null);
				} else {
					submitLargeFile(r, source, size,
							p != null && PreviousArchive.framesMayBeTheSame(p, chunkSize) ? p : null);
				}
			} else {
				throw new ArchiveException("not a regular file, directory or link: " + source, target, name, -1);
			}
		} catch (IOException | RuntimeException | Error e) {
			throw fail(e);
		}
	}

	private Slot takeSlot() throws IOException {
		return slots.take(workers);
	}

	private void giveBack(Slot slot) {
		slots.giveBack(slot);
	}

	private void submitDirectory(EntryRecord r) throws IOException {
		r.method = ArchiveEntry.METHOD_STORED;
		ByteBuffer header = ZipFormat.le(ByteBuffer.allocate(ZipFormat.localHeaderLength(r, false)));
		ZipFormat.putLocalHeader(header, 0, r, false);
		// (absolute puts: position 0, limit its length)
		output.deposit(new WriteUnit.Entry(unitCount++, r, header, null));
	}

	/**
	 * @param previousEntry the previous archive's entry of the file's name and size, whose compressed bytes are
	 *                      copied instead of compressing the file again if the file's CRC-32 is that entry's, or
	 *                      {@code null}
	 */
	private void addToBatch(EntryRecord r, Path source, long size, EntryRecord previousEntry) throws IOException {
		long packed = Zstd.compressBound(size) + ZipFormat.LOC_LEN + r.nameLength;
		if (!batchRecords.isEmpty() && (batchRecords.size() >= MAX_BATCH || batchRaw + size > chunkSize
				|| batchPacked + packed > packedCapacity())) {
			flushBatch();
		}
		batchRecords.add(r);
		batchSources.add(source);
		batchPrevious.add(previousEntry);
		batchRaw += size;
		batchPacked += packed;
	}

	private long packedCapacity() {
		return Zstd.compressBound(chunkSize) + Slot.HEADER_ROOM;
	}

	private void flushBatch() throws IOException {
		if (batchRecords.isEmpty()) {
			return;
		}
		EntryRecord[] recs = batchRecords.toArray(new EntryRecord[0]);
		Path[] sources = batchSources.toArray(new Path[0]);
		EntryRecord[] previousOnes = batchPrevious.toArray(new EntryRecord[0]);
		batchRecords.clear();
		batchSources.clear();
		batchPrevious.clear();
		batchRaw = 0;
		batchPacked = 0;
		long seq = unitCount++;
		Slot slot = takeSlot();
		run(recs[0], () -> output.deposit(compressor.batch(seq, recs, sources, previousOnes, slot)));
	}

	/** Small entry: either {@code source} is read by the worker, or the slot's raw buffer already holds data. */
	private void submitSmall(EntryRecord r, Slot slot, Path source) {
		long seq = unitCount++;
		run(r, () -> output.deposit(compressor.small(seq, r, slot, source)));
	}

	/**
	 * Shares the previous archive's entry for an unchanged file that lies in the files this archive continues
	 * ({@link PreviousArchive#mayShare}), so a differential save holds no second record, name or name string for the
	 * entries it shares, only the previous archive's index.
	 *
	 * @return whether the file was shared
	 */
	private boolean share(EntryRecord p, int mode, FileTime mtime, long size) throws IOException {
		if (!previous.mayShare(p, size, mode, mtime)) {
			return false;
		}
		checkCanceled();
		// the name was checked when the previous archive was opened, and is the one asked for
		records.add(p);
		progress.planned(1, 0);
		copied.incrementAndGet();
		progress.entryDone(p.size);
		return true;
	}

	/** Copies the previous archive's entry {@code p} for an unchanged file into this archive's own file. */
	private boolean submitCopy(EntryRecord r, EntryRecord p, long size) throws IOException {
		if (!PreviousArchive.unchanged(p, size, r.mode, r.mtimeNtfs)) {
			return false;
		}
		r.method = p.method;
		r.crc = p.crc;
		r.size = p.size;
		r.csize = p.csize;
		r.chunkSize = p.chunkSize;
		r.chunkCsize = p.chunkCsize;
		r.chunkCrc = p.chunkCrc;
		long regionEnd = p.regionEnd();
		if (regionEnd > 0) {
			if (!runNew.isEmpty() && (p.localOffset != runEnd || runEnd - runStart > MAX_RUN_BYTES
					|| runNew.size() >= MAX_RUN_ENTRIES)) {
				flushCopyRun();
			}
			if (runNew.isEmpty()) {
				runStart = p.localOffset;
			}
			runNew.add(r);
			runOld.add(p);
			runEnd = regionEnd;
			return true;
		}
		long seq = unitCount++;
		Slot slot = takeSlot();
		boolean zip64 = r.size >= ZipFormat.MAX32 || r.csize >= ZipFormat.MAX32;
		run(r, () -> {
			long from = previous.dataOffset(p);
			ByteBuffer header = slot.packed.clear();
			header.limit(ZipFormat.putLocalHeader(header, 0, r, zip64));
			output.deposit(new WriteUnit.Copy(seq, r, header, from, slot));
		});
		return true;
	}

	private void flushCopyRun() throws IOException {
		if (runNew.isEmpty()) {
			return;
		}
		EntryRecord[] recs = runNew.toArray(new EntryRecord[0]);
		int[] offsets = new int[recs.length];
		for (int i = 0; i < recs.length; i++) {
			offsets[i] = (int) (runOld.get(i).localOffset - runStart);
		}
		long seq = unitCount++;
		long from = runStart;
		long length = runEnd - runStart;
		runNew.clear();
		runOld.clear();
		Slot slot = takeSlot();
		run(recs[0], () -> output.deposit(new WriteUnit.CopyRun(seq, recs, offsets, from, length, slot)));
	}

	/**
	 * @param previousEntry the previous archive's entry of the file's name, cut in frames as this writer cuts chunks,
	 *                      or {@code null}: a chunk whose size and CRC-32 are those of its frame takes the frame's
	 *                      compressed bytes instead of being compressed again (a file written again with the same
	 *                      bytes, or one whose end changed: its first frames)
	 */
	private void submitLargeFile(EntryRecord r, Path source, long size, EntryRecord previousEntry)
			throws IOException {
		// beyond MAX_FRAMES chunks the entry is written without frame table (still one valid zstd stream,
		// decoded by streaming): only files above MAX_FRAMES x chunk size (16 GB by default)
		int chunk = chunkSize;
		long frames = (size + chunk - 1) / chunk;
		if (frames > Integer.MAX_VALUE - 16) {
			throw new ArchiveException("file too large: " + size, target, r.name(), -1);
		}
		int n = (int) frames;
		FileChannel src = compressor.openChunked(source);
		ChunkedEntry chunked = startChunked(r, chunk, n);
		if (previousEntry != null) {
			try {
				chunked.previousFrames(previousEntry, previous.dataOffset(previousEntry));
			} catch (IOException e) {
				EntryCompressor.closeQuietly(src);
				throw e;
			}
		}
		chunked.source = src;
		chunked.readsLeft.set(n);
		for (int i = 0; i < n; i++) {
			long off = (long) i * chunk;
			int len = (int) Math.min(chunk, size - off);
			Slot slot;
			try {
				slot = takeSlot();
			} catch (IOException e) {
				EntryCompressor.closeQuietly(src);
				throw e;
			}
			submitChunk(chunked, i, slot, off, len);
		}
		r.size = size;
		chunked.count = n;
		output.releaseHold(chunked);
	}

	private void submitStream(EntryRecord r, ReadableByteChannel in) throws IOException {
		Slot slot = takeSlot();
		int len = fill(slot.raw.clear(), in);
		slot.raw.flip();
		if (len < chunkSize || endOfStream(in)) {
			bytesIn += len;
			progress.planned(0, len);
			submitSmall(r, slot, null);
			return;
		}
		ChunkedEntry chunked = startChunked(r, chunkSize, ZipFormat.MAX_FRAMES);
		long total = 0;
		int i = 0;
		while (true) {
			if (i >= ZipFormat.MAX_FRAMES) {
				giveBack(slot);
				throw new ArchiveException("stream too large for chunk size " + chunkSize + " (add it as a file)",
						target, r.name(), -1);
			}
			total += len;
			progress.planned(0, len);
			submitChunk(chunked, i++, slot, -1, len);
			slot = takeSlot();
			len = fill(slot.raw.clear(), in);
			slot.raw.flip();
			if (len == 0) {
				giveBack(slot);
				break;
			}
		}
		bytesIn += total;
		r.size = total;
		chunked.count = i;
		output.releaseHold(chunked);
	}

	private int pending = -1;

	private boolean endOfStream(ReadableByteChannel in) throws IOException {
		// a stream that filled the buffer exactly: peek one byte
		ByteBuffer one = ByteBuffer.allocate(1);
		int n;
		do {
			n = in.read(one);
		} while (n == 0);
		if (n < 0) {
			return true;
		}
		pending = one.get(0) & 0xff;
		return false;
	}

	private int fill(ByteBuffer b, ReadableByteChannel in) throws IOException {
		int total = 0;
		if (pending >= 0) {
			b.put((byte) pending);
			pending = -1;
			total = 1;
		}
		while (b.hasRemaining()) {
			int n = in.read(b);
			if (n < 0) {
				break;
			}
			total += n;
			if (n == 0) {
				checkCanceled();
			}
		}
		return total;
	}

	private ChunkedEntry startChunked(EntryRecord r, int chunk, int capacity) throws IOException {
		r.method = ArchiveEntry.METHOD_ZSTD;
		r.chunkSize = chunk;
		ChunkedEntry chunked = new ChunkedEntry(r, capacity);
		output.deposit(new WriteUnit.ChunkedHeader(unitCount++, chunked, ZipFormat.localHeaderLength(r, true)));
		return chunked;
	}

	private void submitChunk(ChunkedEntry chunked, int index, Slot slot, long sourceOffset, int len) {
		long seq = unitCount++;
		chunked.remaining.incrementAndGet();
		run(chunked.record, () -> output.deposit(compressor.chunk(seq, chunked, index, slot, sourceOffset, len)));
	}

	// ---------------------------------------------------------------- workers

	/**
	 * Runs {@code task}, which makes a unit of entry {@code r} and deposits it, on a worker; after a failure or cancel
	 * it does not run (the unit's buffers go with the run).
	 */
	private void run(EntryRecord r, IoTask task) {
		workers.execute(r, skip -> {
			if (!skip) {
				task.run();
			}
		});
	}

	@FunctionalInterface
	private interface IoTask {
		void run() throws IOException;
	}

	private Compressors newContext() {
		return new Compressors(options.level());
	}
}
