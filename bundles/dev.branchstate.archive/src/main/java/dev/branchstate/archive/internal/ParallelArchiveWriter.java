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
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;

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
 * The parallel writer. The calling thread enumerates entries, takes a buffer slot (back-pressure: at most
 * {@link WriteOptions#buffers()} slots exist) and hands a task to the workers. A worker reads its input
 * (positional reads for files), compresses it into the slot's direct buffer with its own zstd context and
 * deposits the result with the sequencer, which hands out file regions in submission order (so the frames of a
 * chunked entry are contiguous). The region is then written with positional writes by the thread that was given
 * it, outside any lock.
 */
public final class ParallelArchiveWriter implements ArchiveWriter {

	private static final int STORE_MIN_SAVING_SHIFT = 5; // store unless zstd saves at least 1/32

	private final Path target;
	private final Path temp;
	private final WriteOptions options;
	private final ArchiveProgress progress;
	private final FileChannel out;
	private final WorkerPool<Compressors> workers;
	private final int chunkSize;
	private final Buffers<Slot> slots;
	/** Sources of chunked files still being read; closed by their last chunk, or by release() after an abort. */
	private final Set<FileChannel> openSources = ConcurrentHashMap.newKeySet();
	private final IndexedArchiveReader previous;
	/** Finds the previous archive's entry of a file the walk reaches, mostly the one after the entry found before. */
	private final IndexedArchiveReader.Cursor previousEntries;
	/**
	 * Sharing: the previous archive's files this one continues, linked beside it (see {@link Continuation}; none in
	 * the end after {@link #detachIfLittleShared}).
	 */
	private List<ArchiveBytes.Continued> continued;
	private List<Path> links;
	/** Their bytes: where this archive's own file starts in its bytes. */
	private long base;
	/** The entries in the order of the central directory; no two of the same name ({@link #names}). */
	private final List<EntryRecord> records = new ArrayList<>();
	private final AddedNames names = new AddedNames(records);
	private final Semaphore unitsDone = new Semaphore(0);
	private final AtomicLong copied = new AtomicLong();
	private final Object sequencer = new Object();
	private final Map<Long, Unit> ready = new HashMap<>();
	private long nextToPlace;
	private long filePosition;
	private long unitCount;
	private long bytesIn;
	/** Small files waiting to be handed to a worker together (fewer hand-offs, one positional write). */
	private final List<EntryRecord> batchRecords = new ArrayList<>();
	private final List<Path> batchSources = new ArrayList<>();
	/** Per batched file, the previous archive's entry of its name and size (another time), or {@code null}. */
	private final List<EntryRecord> batchPrevious = new ArrayList<>();
	private long batchRaw;
	private long batchPacked;
	private volatile boolean aborted;
	private boolean finished;

	public ParallelArchiveWriter(Path target, WriteOptions options) throws IOException {
		this.target = target.toAbsolutePath();
		this.options = options;
		this.progress = options.progress() != null ? options.progress() : new ArchiveProgress();
		this.chunkSize = options.chunkSize();
		this.temp = WriterTemporaryFile.beside(this.target);
		IndexedArchiveReader prev = null;
		FileChannel channel = null;
		List<Path> linked = List.of();
		long baseSize = 0;
		try {
			if (options.previous() != null && Files.isRegularFile(options.previous())) {
				prev = IndexedArchiveReader.open(options.previous());
				prev.findRegions();
				linked = options.sharing() ? linkContinued(prev) : List.of();
			}
			this.continued = linked.isEmpty() ? List.of() : prev.bytes().asContinued().subList(0, linked.size());
			baseSize = linked.isEmpty() ? 0 : prev.bytes().starts()[linked.size()];
			channel = WriterTemporaryFile.createLocked(temp);
		} catch (IOException | RuntimeException e) {
			deleteLinks(linked);
			if (prev != null) {
				prev.close();
			}
			throw e;
		}
		this.previous = prev;
		this.previousEntries = prev != null ? prev.new Cursor() : null;
		this.out = channel;
		this.links = linked;
		this.base = baseSize;
		this.filePosition = base;
		this.slots = new Buffers<>(options.buffers(), () -> new Slot(chunkSize));
		this.workers = new WorkerPool<>(this.target, "archive write", options.executor(), options.workers(),
				() -> progress.isCanceled() || options.cancel().getAsBoolean(), this::newContext,
				(t, r) -> t instanceof IOException || t instanceof Error ? t
						: new ArchiveException("writing failed: " + t, target, r.name(), -1, t));
	}

	/**
	 * Links the files of the previous archive this one continues beside the target: the first ones, as many as
	 * {@link Continuation} says.
	 *
	 * @return the links made, in order; empty when the entries are to be copied instead (see {@link Continuation}),
	 *         or on a file system that cannot link
	 */
	private List<Path> linkContinued(IndexedArchiveReader prev) throws IOException {
		List<Path> files = prev.bytes().files();
		long[] starts = prev.bytes().starts();
		long[] sizes = new long[files.size()];
		for (int i = 0; i < sizes.length; i++) {
			sizes[i] = starts[i + 1] - starts[i];
		}
		int keep = Continuation.filesToContinue(sizes, prev.liveBytesByFile());
		List<Path> made = new ArrayList<>();
		try {
			for (int i = 0; i < keep; i++) {
				Path link = ArchiveBytes.linkName(target, i + 1);
				Files.deleteIfExists(link);
				Files.createLink(link, files.get(i));
				made.add(link);
			}
			return made;
		} catch (IOException | UnsupportedOperationException | SecurityException e) {
			deleteLinks(made);
			return List.of();
		}
	}

	private static void deleteLinks(List<Path> made) {
		for (Path link : made) {
			try {
				Files.deleteIfExists(link);
			} catch (IOException e) {
				// a leftover link: the store's orphan clean-up deletes it
			}
		}
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
				submitSmall(r, slot, null, data.length);
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
			awaitUnits();
			detachIfLittleShared();
			long cdOffset;
			synchronized (sequencer) {
				cdOffset = filePosition;
			}
			long[] at = { cdOffset };
			long size = cdOffset + CentralDirectory.write(records, cdOffset, continued, b -> {
				int n = b.remaining();
				writeFully(b, at[0], null);
				at[0] += n;
			});
			if (options.force()) {
				out.force(true);
			}
			checkCanceled();
			// moved while still open: the temporary file stays locked (a running write) until it has its name
			Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
			finished = true;
			out.close();
			release();
			// links of an archive this one replaced, beyond its own
			for (int n = links.size() + 1; Files.deleteIfExists(ArchiveBytes.linkName(target, n)); n++) {
				// deleted
			}
			return new WriteResult(records.size(), copied.get(), bytesIn, size, size - base);
		} catch (IOException | RuntimeException | Error e) {
			throw fail(e);
		}
	}

	/**
	 * Stops continuing the previous archive's files when this archive shares less than half of their bytes (most files
	 * changed since: a clean build, times that changed): the entries it shares are copied into its own file after the
	 * others, every offset moves down by the continued bytes, and the links go. Otherwise the state would keep the
	 * dead bytes of the previous one alive, twice the disk, until a later save copied everything.
	 */
	private void detachIfLittleShared() throws IOException {
		if (base == 0) {
			return;
		}
		long shared = 0;
		for (EntryRecord r : records) {
			if (r.localOffset < base) {
				shared += ZipFormat.LOC_LEN + r.nameLength + r.csize;
			}
		}
		if (2 * shared >= base) {
			return;
		}
		long position;
		synchronized (sequencer) {
			position = filePosition;
		}
		ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
		for (EntryRecord r : records) {
			if (r.localOffset < base) {
				checkCanceled();
				long from = previous.dataOffset(r);
				boolean zip64 = r.size >= ZipFormat.MAX32 || r.csize >= ZipFormat.MAX32;
				ByteBuffer header = ZipFormat.le(ByteBuffer.allocate(ZipFormat.localHeaderLength(r, zip64)));
				ZipFormat.putLocalHeader(header, 0, r, zip64);
				position += writeCopy(buf, header, from, position, r);
			}
		}
		for (EntryRecord r : records) {
			r.localOffset -= base;
		}
		synchronized (sequencer) {
			filePosition = position - base;
		}
		base = 0;
		continued = List.of();
		deleteLinks(links);
		links = List.of();
	}

	@Override
	public void abort() {
		if (finished) {
			return;
		}
		finished = true;
		aborted = true;
		workers.fail(new ArchiveCanceledException("archive write aborted: " + target));
		try {
			out.close();
		} catch (IOException e) {
			// nothing to add: the file is deleted below
		}
		release();
		try {
			Files.deleteIfExists(temp);
		} catch (IOException e) {
			// best effort; the name is hidden and unique
		}
		deleteLinks(links);
	}

	@Override
	public void close() {
		abort();
	}

	private void release() {
		workers.close();
		for (FileChannel c : openSources) {
			closeQuietly(c);
		}
		openSources.clear();
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
	 *         {@code p}'s place in that index ({@link IndexedArchiveReader.Cursor#supersedeFound}), so that it does not
	 *         hold every record twice either
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
				submitSmall(r, slot, null, link.length);
			} else if (attrs.isRegularFile()) {
				int mode = Modes.modeOf(attrs, DEFAULT_FILE_MODE);
				long size = attrs.size();
				progress.planned(0, size);
				bytesIn += size;
				// the previous archive's entry of that name, looked up once for sharing or copying it
				byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
				EntryRecord p = previous != null ? previousEntries.find(utf8) : null;
				if (p != null && share(p, mode, attrs.lastModifiedTime(), size)) {
					return;
				}
				EntryRecord r = p != null ? newRecord(p, mode, attrs.lastModifiedTime())
						: newRecord(name, utf8, EntryType.FILE, mode, attrs.lastModifiedTime());
				if (p != null) {
					previousEntries.supersedeFound(r); // (p is held from now on by what reads its bytes, if any)
				}
				if (p != null && submitCopy(r, p, size)) {
					return;
				}
				if (size <= chunkSize) {
					addToBatch(r, source, size, p != null && mayHoldTheSameBytes(p, size) ? p : null);
				} else {
					submitLargeFile(r, source, size, p != null && framesMayBeTheSame(p) ? p : null);
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
		deposit(new Entry(unitCount++, r, header, null)); // (absolute puts: position 0, limit its length)
	}

	private static final int MAX_BATCH = 512;

	/**
	 * @return whether the previous archive's entry {@code p} may hold the bytes of a file of this size whose time
	 *         (or mode) is not its own: one frame of a method this writer copies
	 */
	private static boolean mayHoldTheSameBytes(EntryRecord p, long size) {
		return p.type == EntryType.FILE && p.size == size && !p.chunked()
				&& (p.method == ArchiveEntry.METHOD_STORED || p.method == ArchiveEntry.METHOD_ZSTD);
	}

	/**
	 * @return whether the frames of the previous archive's entry {@code p} are cut where this writer cuts a file's
	 *         chunks, so that a chunk of the same bytes as one of them may take its compressed bytes
	 */
	private boolean framesMayBeTheSame(EntryRecord p) {
		return p.type == EntryType.FILE && p.chunked() && p.chunkSize == chunkSize
				&& p.method == ArchiveEntry.METHOD_ZSTD;
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
		run(recs[0], () -> compressBatch(seq, recs, sources, previousOnes, slot));
	}

	/**
	 * Reads, checksums and compresses several small files into one slot; they are written with one write. A file
	 * whose CRC-32 and size are those of its previous entry (written again with the same bytes, by a build that
	 * rewrites every class file, say) takes that entry's compressed bytes instead of being compressed again.
	 */
	private void compressBatch(long seq, EntryRecord[] recs, Path[] sources, EntryRecord[] previousOnes, Slot slot)
			throws IOException {
		ByteBuffer raw = slot.raw.clear();
		ByteBuffer packed = slot.packed.clear();
		int[] offsets = new int[recs.length];
		CRC32 crc = new CRC32();
		int rawOff = 0;
		int out = 0;
		for (int i = 0; i < recs.length; i++) {
			EntryRecord r = recs[i];
			raw.limit(raw.capacity()).position(rawOff);
			try (FileChannel ch = FileChannel.open(sources[i], StandardOpenOption.READ)) {
				while (raw.hasRemaining()) {
					if (ch.read(raw) < 0) {
						break;
					}
				}
				if (!raw.hasRemaining() && ch.position() < ch.size()) {
					throw new ArchiveException("file grew while being archived: " + sources[i], target, r.name(), -1);
				}
			}
			int len = raw.position() - rawOff;
			r.size = len;
			crc.reset();
			crc.update(raw.duplicate().position(rawOff).limit(rawOff + len));
			r.crc = (int) crc.getValue();
			int hdr = ZipFormat.localHeaderLength(r, false);
			int room = packed.capacity() - out - hdr;
			EntryRecord p = previousOnes[i];
			if (p != null && p.size == len && p.crc == r.crc && p.csize <= room) {
				readPreviousData(p, packed, out + hdr);
				r.method = p.method;
				r.csize = p.csize;
				copied.incrementAndGet();
			} else {
				int csize = -1;
				if (len >= 64 && Zstd.compressBound(len) <= room) {
					csize = context(raw, rawOff, len).compressDirectByteBuffer(packed, out + hdr, room, raw, rawOff,
							len);
					if (csize >= len - (len >> STORE_MIN_SAVING_SHIFT)) {
						csize = -1;
					}
				}
				if (csize < 0) {
					if (len > room) {
						throw new ArchiveException("file grew while being archived: " + sources[i], target, r.name(),
								-1);
					}
					r.method = ArchiveEntry.METHOD_STORED;
					r.csize = len;
					packed.put(out + hdr, raw, rawOff, len);
				} else {
					r.method = ArchiveEntry.METHOD_ZSTD;
					r.csize = csize;
				}
			}
			ZipFormat.putLocalHeader(packed, out, r, false);
			offsets[i] = out;
			out += hdr + (int) r.csize;
			rawOff += len;
		}
		deposit(new Batch(seq, recs, offsets, packed.limit(out).position(0), slot));
	}

	/**
	 * Reads the compressed bytes of the previous archive's entry {@code p} into {@code packed} at {@code at} (its
	 * local header checked against its record first, as for every entry copied from it).
	 */
	private void readPreviousData(EntryRecord p, ByteBuffer packed, int at) throws IOException {
		readPrevious(packed.duplicate().limit(at + (int) p.csize).position(at), previous.dataOffset(p), p);
	}

	/** Fills {@code into} (from its position to its limit) from the previous archive's bytes at {@code from}. */
	private void readPrevious(ByteBuffer into, long from, EntryRecord p) throws IOException {
		int start = into.position();
		while (into.hasRemaining()) {
			if (previous.read(into, from + into.position() - start) < 0) {
				throw new ArchiveException("previous archive truncated", previous.path(), p.name(), from);
			}
		}
	}

	/** Small entry: either {@code source} is read by the worker, or the slot's raw buffer already holds data. */
	private void submitSmall(EntryRecord r, Slot slot, Path source, long expected) {
		long seq = unitCount++;
		run(r, () -> compressSmall(seq, r, slot, source, expected));
	}

	/**
	 * Shares the previous archive's entry for an unchanged file that lies in the files this archive continues: the
	 * previous record itself becomes this archive's (every field the central directory takes from it is the same:
	 * name, method, time, CRC-32, sizes, offset, frame table), so a differential save holds no second record, name
	 * or name string for the entries it shares, only the previous archive's index.
	 *
	 * @return whether the file was shared
	 */
	private boolean share(EntryRecord p, int mode, FileTime mtime, long size) throws IOException {
		if (p.localOffset >= base || !unchanged(p, size, mode & 07777, ZipFormat.toNtfs(mtime))) {
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

	/** @return whether the previous archive's entry {@code p} holds a file of this size, mode and time */
	private static boolean unchanged(EntryRecord p, long size, int mode, long mtimeNtfs) {
		return p.type == EntryType.FILE && p.size == size && p.mode == mode && p.mtimeNtfs == mtimeNtfs
				&& (p.method == ArchiveEntry.METHOD_STORED || p.method == ArchiveEntry.METHOD_ZSTD);
	}

	/** Copies the previous archive's entry {@code p} for an unchanged file into this archive's own file. */
	private boolean submitCopy(EntryRecord r, EntryRecord p, long size) throws IOException {
		if (!unchanged(p, size, r.mode, r.mtimeNtfs)) {
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
			deposit(new Copy(seq, r, header, from, slot));
		});
		return true;
	}

	private static final long MAX_RUN_BYTES = 64L << 20;
	private static final int MAX_RUN_ENTRIES = 4096;
	/** Unchanged entries adjacent in the previous archive: copied verbatim (local headers and data) as one region. */
	private final List<EntryRecord> runNew = new ArrayList<>();
	private final List<EntryRecord> runOld = new ArrayList<>();
	private long runStart;
	private long runEnd;

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
		run(recs[0], () -> deposit(new CopyRun(seq, recs, offsets, from, length, slot)));
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
		FileChannel src = FileChannel.open(source, StandardOpenOption.READ);
		openSources.add(src);
		Large large = startLarge(r, chunk, n);
		if (previousEntry != null) {
			try {
				large.previousFrames(previousEntry, previous.dataOffset(previousEntry));
			} catch (IOException e) {
				closeQuietly(src);
				throw e;
			}
		}
		large.source = src;
		large.readsLeft.set(n);
		for (int i = 0; i < n; i++) {
			long off = (long) i * chunk;
			int len = (int) Math.min(chunk, size - off);
			Slot slot;
			try {
				slot = takeSlot();
			} catch (IOException e) {
				closeQuietly(src);
				throw e;
			}
			submitChunk(large, i, slot, off, len);
		}
		r.size = size;
		large.count = n;
		releaseHold(large);
	}

	private void submitStream(EntryRecord r, ReadableByteChannel in) throws IOException {
		Slot slot = takeSlot();
		int len = fill(slot.raw.clear(), in);
		slot.raw.flip();
		if (len < chunkSize || endOfStream(in)) {
			bytesIn += len;
			progress.planned(0, len);
			submitSmall(r, slot, null, len);
			return;
		}
		Large large = startLarge(r, chunkSize, ZipFormat.MAX_FRAMES);
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
			submitChunk(large, i++, slot, -1, len);
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
		large.count = i;
		releaseHold(large);
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

	private Large startLarge(EntryRecord r, int chunk, int capacity) throws IOException {
		r.method = ArchiveEntry.METHOD_ZSTD;
		r.chunkSize = chunk;
		Large large = new Large(r, capacity);
		deposit(new LargeHeader(unitCount++, large, ZipFormat.localHeaderLength(r, true)));
		return large;
	}

	private void submitChunk(Large large, int index, Slot slot, long sourceOffset, int len) {
		long seq = unitCount++;
		large.remaining.incrementAndGet();
		run(large.record, () -> compressChunk(seq, large, index, slot, sourceOffset, len));
	}

	private void releaseHold(Large large) {
		if (large.remaining.decrementAndGet() == 0) {
			try {
				finishLarge(large);
			} catch (IOException e) {
				throw new UncheckedIOException(e);
			}
		}
	}

	/** Waits until every unit is written (in order, by whichever worker placed it). */
	private void awaitUnits() throws IOException {
		workers.await(unitsDone, unitCount);
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

	/** @return the calling worker's zstd context for the {@code len} bytes of {@code src} from {@code off} */
	private ZstdCompressCtx context(ByteBuffer src, int off, int len) {
		return workers.context().forData(src, off, len);
	}

	private void compressSmall(long seq, EntryRecord r, Slot slot, Path source, long expected) throws IOException {
		ByteBuffer raw = slot.raw;
		if (source != null) {
			raw.clear();
			try (FileChannel ch = FileChannel.open(source, StandardOpenOption.READ)) {
				while (raw.hasRemaining()) {
					if (ch.read(raw) < 0) {
						break;
					}
				}
				if (!raw.hasRemaining() && ch.size() > raw.capacity()) {
					throw new ArchiveException("file grew while being archived: " + source, target, r.name(), -1);
				}
			}
			raw.flip();
		}
		int len = raw.remaining();
		r.size = len;
		CRC32 crc = new CRC32();
		crc.update(raw.duplicate());
		r.crc = (int) crc.getValue();
		int hdr = ZipFormat.localHeaderLength(r, false);
		ByteBuffer packed = slot.packed.clear();
		int csize = -1;
		if (len >= 64 && r.type == EntryType.FILE) {
			csize = context(raw, 0, len).compressDirectByteBuffer(packed, hdr, packed.capacity() - hdr, raw, 0, len);
			if (csize >= len - (len >> STORE_MIN_SAVING_SHIFT)) {
				csize = -1;
			}
		}
		if (csize < 0) {
			r.method = ArchiveEntry.METHOD_STORED;
			r.csize = len;
			packed.put(hdr, raw, 0, len);
		} else {
			r.method = ArchiveEntry.METHOD_ZSTD;
			r.csize = csize;
		}
		ZipFormat.putLocalHeader(packed, 0, r, false);
		deposit(new Entry(seq, r, packed.limit(hdr + (int) r.csize), slot));
	}

	private void compressChunk(long seq, Large large, int index, Slot slot, long sourceOffset, int len)
			throws IOException {
		ByteBuffer raw = slot.raw;
		if (sourceOffset >= 0) {
			raw.clear().limit(len);
			try {
				long pos = sourceOffset;
				while (raw.hasRemaining()) {
					int n = large.source.read(raw, pos);
					if (n < 0) {
						throw new ArchiveException("file shrank while being archived", target, large.record.name(),
								-1);
					}
					pos += n;
				}
			} finally {
				if (large.readsLeft.decrementAndGet() == 0) {
					closeQuietly(large.source);
					openSources.remove(large.source);
				}
			}
			raw.flip();
		}
		CRC32 crc = new CRC32();
		crc.update(raw.duplicate());
		ByteBuffer packed = slot.packed.clear();
		int csize;
		long frame = large.previousFrame(index, len, (int) crc.getValue());
		if (frame >= 0 && large.previous.chunkCsize[index] <= packed.capacity()) {
			csize = large.previous.chunkCsize[index];
			readPrevious(packed.limit(csize), frame, large.previous);
			packed.position(0);
			large.framesTaken.incrementAndGet();
		} else {
			csize = context(raw, 0, len).compressDirectByteBuffer(packed, 0, packed.capacity(), raw, 0, len);
		}
		large.chunkCrc[index] = (int) crc.getValue();
		large.chunkCsize[index] = csize;
		large.chunkLen[index] = len;
		deposit(new Chunk(seq, large, index, packed.limit(csize), slot));
	}

	/** Hands a finished unit to the sequencer; writes the units whose region this call assigned. */
	private void deposit(Unit u) throws IOException {
		List<Unit> mine = null;
		long position = 0;
		synchronized (sequencer) {
			ready.put(u.seq(), u);
			Unit next;
			while ((next = ready.remove(nextToPlace)) != null) {
				if (mine == null) {
					mine = new ArrayList<>(2);
					position = filePosition;
				}
				if (next instanceof LargeHeader h) {
					h.large().headerPosition = filePosition;
				}
				filePosition += next.length();
				nextToPlace++;
				mine.add(next);
			}
		}
		if (mine != null) {
			for (Unit m : mine) {
				long length = m.length();
				write(m, position);
				position += length;
			}
		}
	}

	/** Writes a unit at the position the sequencer gave it, then gives back its buffers. */
	private void write(Unit u, long position) throws IOException {
		switch (u) {
			case Entry e -> {
				e.record().localOffset = position;
				writeFully(e.bytes(), position, e.record());
				progress.entryDone(e.record().size);
			}
			case Batch b -> {
				writeFully(b.bytes(), position, b.records()[0]);
				placed(b.records(), b.offsets(), position);
			}
			case CopyRun c -> {
				copyRegion(c.slot().raw, c.from(), position, c.length(), c.records()[0]);
				placed(c.records(), c.offsets(), position);
				copied.addAndGet(c.records().length);
			}
			case LargeHeader h -> {
				// region reserved; the header is written by finishLarge once sizes and CRC are known
			}
			case Chunk c -> {
				writeFully(c.bytes(), position, c.large().record);
				progress.bytesDone(c.large().chunkLen[c.index()]);
			}
			case Copy c -> {
				EntryRecord r = c.record();
				writeCopy(c.slot().raw, c.header(), c.from(), position, r);
				copied.incrementAndGet();
				progress.entryDone(r.size);
			}
		}
		giveBack(u.slot());
		if (u instanceof Chunk c && c.large().remaining.decrementAndGet() == 0) {
			finishLarge(c.large());
		}
		unitsDone.release();
	}

	/** Records where the entries of a batch or copied run went, at their offsets from {@code position}. */
	private void placed(EntryRecord[] records, int[] offsets, long position) {
		for (int i = 0; i < records.length; i++) {
			records[i].localOffset = position + offsets[i];
			progress.entryDone(records[i].size);
		}
	}

	/**
	 * Writes an entry copied from the previous archive at {@code position}: {@code header}, a new local header, then
	 * its data from {@code from} there; the record now says it is here.
	 *
	 * @return the bytes written
	 */
	private long writeCopy(ByteBuffer buf, ByteBuffer header, long from, long position, EntryRecord r)
			throws IOException {
		int h = header.remaining();
		writeFully(header, position, r);
		copyRegion(buf, from, position + h, r.csize, r);
		r.localOffset = position;
		return h + r.csize;
	}

	private void copyRegion(ByteBuffer buf, long fromPosition, long toPosition, long length, EntryRecord r)
			throws IOException {
		long from = fromPosition;
		long to = toPosition;
		long left = length;
		while (left > 0) {
			buf.clear();
			if (left < buf.capacity()) {
				buf.limit((int) left);
			}
			readPrevious(buf, from, r);
			buf.flip();
			int n = buf.remaining();
			writeFully(buf, to, r);
			from += n;
			to += n;
			left -= n;
		}
	}

	private void finishLarge(Large large) throws IOException {
		EntryRecord r = large.record;
		int n = large.count;
		r.chunkCsize = Arrays.copyOf(large.chunkCsize, n);
		r.chunkCrc = Arrays.copyOf(large.chunkCrc, n);
		long csize = 0;
		int crc = 0;
		for (int i = 0; i < n; i++) {
			csize += r.chunkCsize[i] & ZipFormat.MAX32;
			crc = i == 0 ? r.chunkCrc[0] : Crc32Combine.combine(crc, r.chunkCrc[i], large.chunkLen[i]);
		}
		r.csize = csize;
		r.crc = crc;
		r.localOffset = large.headerPosition;
		if (large.framesTaken.get() == n) {
			copied.incrementAndGet(); // (every frame the previous entry's)
		}
		if (n > ZipFormat.MAX_FRAMES) {
			r.chunkCsize = null;
			r.chunkCrc = null;
		}
		ByteBuffer h = ZipFormat.le(ByteBuffer.allocate(ZipFormat.localHeaderLength(r, true)));
		ZipFormat.putLocalHeader(h, 0, r, true);
		writeFully(h, large.headerPosition, r);
		progress.entryDone(0);
	}

	/** Writes at {@code position} of the archive's bytes: at {@code position - base} of its own file. */
	private void writeFully(ByteBuffer b, long position, EntryRecord r) throws IOException {
		long pos = position - base;
		try {
			while (b.hasRemaining()) {
				pos += out.write(b, pos);
			}
		} catch (IOException e) {
			if (aborted) {
				throw new ArchiveCanceledException("archive write aborted: " + target);
			}
			throw new ArchiveException("cannot write archive: " + e, temp, r == null ? null : r.name(), pos, e);
		}
	}

	private static void closeQuietly(FileChannel c) {
		try {
			c.close();
		} catch (IOException e) {
			// read-only source: nothing lost
		}
	}

	// ---------------------------------------------------------------- state holders

	/**
	 * A piece of the archive's bytes in submission order: made by a worker (or the calling thread), placed by the
	 * sequencer, written by whichever thread placed it. A unit's buffers hold its bytes from 0 to their limit.
	 */
	private sealed interface Unit {
		/** @return its place in submission order */
		long seq();

		/** @return the bytes it takes in the archive */
		long length();

		/** @return the buffers it holds until written, or {@code null} */
		Slot slot();
	}

	/** One entry: its local header and data (a directory's header alone, without buffers). */
	private record Entry(long seq, EntryRecord record, ByteBuffer bytes, Slot slot) implements Unit {
		@Override
		public long length() {
			return bytes.limit();
		}
	}

	/** Small entries compressed together, written with one write; {@code offsets}: where each starts in it. */
	private record Batch(long seq, EntryRecord[] records, int[] offsets, ByteBuffer bytes, Slot slot) implements Unit {
		@Override
		public long length() {
			return bytes.limit();
		}
	}

	/** Unchanged entries adjacent in the previous archive, copied verbatim (local headers and data) as one region. */
	private record CopyRun(long seq, EntryRecord[] records, int[] offsets, long from, long length, Slot slot)
			implements Unit {
	}

	/** An unchanged entry: a new local header, its data copied from {@code from} in the previous archive. */
	private record Copy(long seq, EntryRecord record, ByteBuffer header, long from, Slot slot) implements Unit {
		@Override
		public long length() {
			return header.limit() + record.csize;
		}
	}

	/** The region of a chunked entry's local header, written once all its frames are (sizes and CRC known then). */
	private record LargeHeader(long seq, Large large, long length) implements Unit {
		@Override
		public Slot slot() {
			return null;
		}
	}

	/** One compressed frame of a chunked entry. */
	private record Chunk(long seq, Large large, int index, ByteBuffer bytes, Slot slot) implements Unit {
		@Override
		public long length() {
			return bytes.limit();
		}
	}

	private static final class Large {
		final EntryRecord record;
		final int[] chunkCsize;
		final int[] chunkCrc;
		final int[] chunkLen;
		/** One hold for the submitter plus one per chunk not yet written. */
		final AtomicInteger remaining = new AtomicInteger(1);
		final AtomicInteger readsLeft = new AtomicInteger();
		FileChannel source;
		volatile long headerPosition;
		volatile int count;
		/** The previous archive's entry of the name, cut as this one is, or {@code null}. */
		EntryRecord previous;
		/** Where each frame of {@link #previous} starts in the previous archive's bytes. */
		long[] previousFrameStart;
		/** Frames that took the previous entry's compressed bytes. */
		final AtomicInteger framesTaken = new AtomicInteger();

		Large(EntryRecord record, int capacity) {
			this.record = record;
			this.chunkCsize = new int[capacity];
			this.chunkCrc = new int[capacity];
			this.chunkLen = new int[capacity];
		}

		/** @param data where the previous entry's data starts in the previous archive's bytes */
		void previousFrames(EntryRecord p, long data) {
			long[] start = new long[p.chunkCsize.length];
			long at = data;
			for (int k = 0; k < start.length; k++) {
				start[k] = at;
				at += p.chunkCsize[k] & ZipFormat.MAX32;
			}
			previousFrameStart = start;
			previous = p;
		}

		/**
		 * @return where the previous entry's frame {@code index} starts if it holds {@code len} bytes of CRC-32
		 *         {@code crc}, else -1
		 */
		long previousFrame(int index, int len, int crc) {
			EntryRecord p = previous;
			if (p == null || index >= p.chunkCsize.length || p.chunkCrc[index] != crc
					|| Math.min(p.chunkSize, p.size - (long) index * p.chunkSize) != len) {
				return -1;
			}
			return previousFrameStart[index];
		}
	}
}
