package dev.branchstate.archive.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdDecompressCtx;

import dev.branchstate.archive.ArchiveCanceledException;
import dev.branchstate.archive.ArchiveEntry;
import dev.branchstate.archive.ArchiveException;
import dev.branchstate.archive.ArchiveProgress;
import dev.branchstate.archive.EntryType;
import dev.branchstate.archive.ExtractOptions;
import dev.branchstate.archive.ExtractPlan;
import dev.branchstate.archive.ExtractResult;

/**
 * One extraction. The calling thread walks the index, takes a buffer slot per task (bounded read-ahead) and
 * hands tasks to the workers: a small entry is read with one positional read, decompressed in one call into a
 * direct buffer, CRC-checked and only then written (so a bad entry never leaves a file); a chunked entry's frames
 * are decoded in parallel into a temporary file renamed when all frames passed their CRC; other large entries
 * stream into a temporary file. Symbolic links are created last and only if they resolve inside the target.
 * <p>
 * In verify mode ({@link #verifier}) the same reads and decoding run with the same limits, every entry is checked
 * (size, CRC-32) and nothing is written.
 */
final class Extractor {

	private static final int MAX_LINK = 4096;

	private final IndexedArchiveReader reader;
	private final Path archive;
	private final Path root;
	/** where the extraction writes; {@code null} in verify mode */
	private final TargetTree tree;
	private final ExtractOptions options;
	private final ArchiveProgress progress;
	private final int bufferSize;
	private final int packedCapacity;
	private final Buffers<ReadSlot> slots;
	private final AtomicLong skipped = new AtomicLong();
	private final AtomicLong bytesWritten = new AtomicLong();
	private WorkerPool<ZstdDecompressCtx> workers;
	/** whether an entry was left out of the target (an unsafe link skipped): the mirror then looks up every name */
	private boolean linksLeftOut;
	private final List<EntryRecord> smallFiles = new ArrayList<>();
	private int prefixLength;
	/** verify mode: the name prefixes of the entries to check; {@code null} when extracting */
	private final List<String> verifyPrefixes;
	/** verify mode: plans whose entries already identical in their targets are not checked (never read) */
	private final List<ExtractPlan> verifySkipping;
	/** extraction: whether each file's target is looked at (differential, and no plan said what to write) */
	private final boolean checkIdentity;

	Extractor(IndexedArchiveReader reader, Path target, ExtractOptions options) {
		this(reader, target.toAbsolutePath().normalize(), null, List.of(), options);
	}

	/**
	 * @return an extractor that checks the file and link entries under any of the prefixes, but those that one of
	 *         the plans skips, and writes nothing
	 */
	static Extractor verifier(IndexedArchiveReader reader, List<String> prefixes, Collection<ExtractPlan> skipping,
			ExtractOptions options) {
		return new Extractor(reader, null, List.copyOf(prefixes), List.copyOf(skipping),
				options.withPrefix("").withDifferential(false).withMirror(false).withPlan(null));
	}

	private Extractor(IndexedArchiveReader reader, Path root, List<String> verifyPrefixes,
			List<ExtractPlan> verifySkipping, ExtractOptions options) {
		this.reader = reader;
		this.archive = reader.path();
		this.root = root;
		this.tree = root == null ? null : new TargetTree(root);
		this.verifyPrefixes = verifyPrefixes;
		this.verifySkipping = verifySkipping;
		this.options = options;
		this.checkIdentity = options.differential() && options.plan() == null;
		this.progress = options.progress() != null ? options.progress() : new ArchiveProgress();
		this.bufferSize = reader.bufferSize();
		this.packedCapacity = (int) Math.min(Integer.MAX_VALUE - 16, Zstd.compressBound(bufferSize) + 2 * 0xffff + 64);
		this.slots = new Buffers<>(options.buffers(), ReadSlot::new);
	}

	/** Buffers of the reader: compressed bytes including the local header, and uncompressed data. */
	private final class ReadSlot {
		final ByteBuffer packed = ZipFormat.le(ByteBuffer.allocateDirect(packedCapacity));
		final ByteBuffer raw = ByteBuffer.allocateDirect(bufferSize);
	}

	ExtractResult run() throws IOException {
		String prefix = options.prefix();
		prefixLength = prefix.getBytes(StandardCharsets.UTF_8).length;
		List<EntryRecord> selected = new ArrayList<>();
		long total = 0;
		if (verifying() && !reader.centralDirectoryChecked()) {
			throw new ArchiveException("no checksum of the central directory in the archive's comment: damaged there,"
					+ " or not written by this engine", archive, null, -1);
		}
		ExtractPlan plan = options.plan();
		if (plan != null && (!plan.target().equals(root) || !plan.prefix().equals(prefix))) {
			throw new IllegalArgumentException("a plan for " + plan.target() + " (prefix '" + plan.prefix()
					+ "') given to an extraction into " + root + " (prefix '" + prefix + "')");
		}
		EntryRecord[] records = reader.records();
		boolean[] skip = verifying() ? skippedByPlans(records) : null;
		for (int i : verifying() ? indicesUnderAny(verifyPrefixes) : reader.indicesUnder(prefix)) {
			EntryRecord r = records[i];
			if (r.nameLength == prefixLength) {
				continue;
			}
			if (verifying() && skip[i]) {
				continue; // identical in its target, or a folder: an extraction with the plan never reads it
			}
			if (verifying() && r.type == EntryType.DIRECTORY) {
				reader.dataOffset(r); // a directory has no data: its local header is all there is to check
				continue;
			}
			if (r.type != EntryType.DIRECTORY && r.method != ArchiveEntry.METHOD_STORED
					&& r.method != ArchiveEntry.METHOD_ZSTD) {
				throw new ArchiveException("unsupported compression method " + r.method, archive, r.name(),
						r.localOffset);
			}
			if (r.size > (1 << 20) && (r.csize == 0 || r.size / r.csize > options.maxRatio())) {
				throw new ArchiveException("compression ratio above the limit " + options.maxRatio()
						+ " (size " + r.size + ", compressed " + r.csize + ")", archive, r.name(), r.localOffset);
			}
			if (r.type == EntryType.SYMLINK && r.size > MAX_LINK) {
				throw new ArchiveException("symbolic link target longer than " + MAX_LINK, archive, r.name(),
						r.localOffset);
			}
			total += r.size;
			if (total > options.maxTotalSize() || total < 0) {
				throw new ArchiveException("total size of the entries above the limit " + options.maxTotalSize(),
						archive, r.name(), r.localOffset);
			}
			selected.add(r);
		}
		progress.planned(selected.size(), total);
		if (!verifying()) {
			tree.create();
		}
		workers = new WorkerPool<>(archive, verifying() ? "verification" : "extraction", options.executor(),
				options.workers(), () -> progress.isCanceled() || options.cancel().getAsBoolean(),
				ZstdDecompressCtx::new, this::wrap);
		List<EntryRecord> links = new ArrayList<>();
		List<EntryRecord> dirs = new ArrayList<>();
		long[] planned = plan == null ? null : offsetsOf(plan);
		try {
			for (EntryRecord r : selected) {
				checkCanceled();
				try {
					switch (r.type) {
						case DIRECTORY -> {
							String rel = r.nameAfter(prefixLength);
							tree.makeFolder(rel.substring(0, rel.length() - 1));
							dirs.add(r);
							progress.entryDone(0);
						}
						case SYMLINK -> {
							if (verifying()) { // its data is the target: checked like a small file
								submitFile(r, r.nameAfter(prefixLength));
							} else {
								links.add(r);
							}
						}
						case FILE -> {
							if (planned == null || Arrays.binarySearch(planned, r.localOffset) >= 0) {
								submitFile(r, r.nameAfter(prefixLength));
							} else { // identical in the target, as the plan found
								skipped.incrementAndGet();
								progress.entryDone(r.size);
							}
						}
					}
				} catch (IOException e) {
					throw rethrow(e, r);
				}
			}
			submitBatches();
			workers.awaitTasks();
			for (EntryRecord r : links) {
				checkCanceled();
				try {
					createLink(r, r.nameAfter(prefixLength));
				} catch (IOException e) {
					throw rethrow(e, r);
				}
			}
			List<String> listed = new ArrayList<>();
			List<String> removed = options.mirror() ? mirror(selected, prefix, listed) : List.of();
			setFolderTimes(dirs, prefix, listed);
			return new ExtractResult(verifying() ? List.of() : tree.written(), skipped.get(), removed,
					bytesWritten.get());
		} catch (IOException | RuntimeException | Error e) {
			Throwable first = workers.failure();
			workers.fail(e);
			workers.awaitTasksQuietly();
			Throwable t = wrap(first != null ? first : e, null);
			if (t instanceof IOException io) {
				throw io;
			}
			if (t instanceof Error err) {
				throw err;
			}
			throw new ArchiveException("extraction failed: " + t, archive, null, -1, t);
		} finally {
			workers.close();
			slots.clear();
		}
	}

	/**
	 * @return where the entries the plan writes start (each entry's own), sorted: looked up once each, so that the
	 *         walk over every selected record makes no name of those it leaves as they are (most of them, in a
	 *         restore where little differs)
	 */
	private long[] offsetsOf(ExtractPlan plan) {
		long[] offsets = new long[plan.toWrite().size()];
		int n = 0;
		for (String name : plan.toWrite()) {
			EntryRecord r = reader.record(name);
			if (r != null) {
				offsets[n++] = r.localOffset;
			}
		}
		offsets = Arrays.copyOf(offsets, n);
		Arrays.sort(offsets);
		return offsets;
	}

	/** @return the indices of the records under any of the prefixes, ascending, each once */
	private int[] indicesUnderAny(List<String> prefixes) {
		if (prefixes.size() == 1) {
			return reader.indicesUnder(prefixes.get(0));
		}
		boolean[] under = new boolean[reader.records().length];
		int count = 0;
		for (String prefix : prefixes) {
			for (int i : reader.indicesUnder(prefix)) {
				if (!under[i]) {
					under[i] = true;
					count++;
				}
			}
		}
		int[] indices = new int[count];
		for (int i = 0, k = 0; k < count; i++) {
			if (under[i]) {
				indices[k++] = i;
			}
		}
		return indices;
	}

	/**
	 * @return per record index: a file entry that the plans of {@link #verifySkipping} found identical in their
	 *         targets (under a plan's prefix, and written by none), or that goes into an empty target when
	 *         {@link ExtractOptions#emptyTargetsCheckedWhileWritten()}; or a folder entry under a plan's prefix (an
	 *         extraction makes the folder from the central directory's record, and never reads its local header)
	 */
	private boolean[] skippedByPlans(EntryRecord[] records) {
		boolean[] skip = new boolean[records.length];
		boolean[] written = new boolean[records.length];
		for (ExtractPlan plan : verifySkipping) {
			// into an empty target, the extraction's own checks suffice when the caller asks so
			boolean checkedWhenWritten = plan.emptyTarget() && options.emptyTargetsCheckedWhileWritten();
			if (!checkedWhenWritten) { // (the names it writes looked up once each: no name made per record)
				byte[] prefix = plan.prefix().getBytes(StandardCharsets.UTF_8);
				for (String name : plan.toWrite()) {
					int i = reader.indexOf(name);
					if (i >= 0 && records[i].nameStartsWith(prefix)) {
						written[i] = true;
					}
				}
			}
			for (int i : reader.indicesUnder(plan.prefix())) {
				EntryType type = records[i].type;
				skip[i] = type == EntryType.DIRECTORY || type == EntryType.FILE && !written[i];
			}
		}
		return skip;
	}

	// ---------------------------------------------------------------- submission

	private boolean verifying() {
		return verifyPrefixes != null;
	}

	private void checkCanceled() throws IOException {
		workers.checkCanceled();
	}

	private ReadSlot takeSlot() throws IOException {
		return slots.take(workers);
	}

	private void giveBack(ReadSlot s) {
		slots.giveBack(s);
	}

	private void submitFile(EntryRecord r, String rel) throws IOException {
		if (r.chunked() && r.chunkSize <= bufferSize) {
			submitChunked(r, rel);
		} else if (r.size <= bufferSize && r.csize <= packedCapacity - 2 * 0xffff - 64) {
			smallFiles.add(r);
		} else {
			ReadSlot slot = takeSlot();
			submit(r, skip -> {
				try {
					if (!skip) {
						extractStreaming(r, rel);
					}
				} finally {
					giveBack(slot);
				}
			});
		}
	}

	/**
	 * Runs {@code task} on a worker. A task always runs, in skip mode after a failure or cancel, so that it gives back
	 * its buffers and a chunked entry's last task deletes the temporary file.
	 */
	private void submit(EntryRecord r, WorkerPool.Task task) {
		workers.execute(r, task);
	}

	private ZstdDecompressCtx context() {
		return workers.context();
	}

	// ---------------------------------------------------------------- workers

	/** Filesystem errors become archive exceptions naming the entry; cancellation and errors pass through. */
	private Throwable wrap(Throwable t, EntryRecord r) {
		if (t instanceof ArchiveException || t instanceof ArchiveCanceledException || t instanceof Error) {
			return t;
		}
		return new ArchiveException("cannot extract: " + t, archive, r == null ? null : r.name(),
				r == null ? -1 : r.localOffset, t);
	}

	private IOException rethrow(IOException e, EntryRecord r) {
		Throwable t = wrap(e, r);
		return t instanceof IOException io ? io : e;
	}

	private ArchiveException bad(String msg, EntryRecord r, long offset) {
		return new ArchiveException(msg, archive, r.name(), offset);
	}

	private static final int MAX_BATCH = 256;
	private static final int LOCAL_EXTRA_GUESS = 64;

	/**
	 * Small entries are extracted in batches of neighbours in archive order: one positional read brings in the
	 * local headers and data of up to {@link #MAX_BATCH} entries, one task decodes and writes them.
	 */
	private void submitBatches() throws IOException {
		smallFiles.sort(java.util.Comparator.comparingLong(r -> r.localOffset));
		long limit = packedCapacity - 2 * 0xffff - 64;
		List<EntryRecord> cur = new ArrayList<>();
		long spanStart = 0;
		long spanEnd = 0;
		for (EntryRecord r : smallFiles) {
			checkCanceled();
			long end = r.localOffset + ZipFormat.LOC_LEN + r.nameLength + LOCAL_EXTRA_GUESS + r.csize;
			if (!cur.isEmpty() && (cur.size() >= MAX_BATCH || end - spanStart > limit || r.localOffset > spanEnd + (1 << 16))) {
				submitBatch(cur);
				cur = new ArrayList<>();
			}
			if (cur.isEmpty()) {
				spanStart = r.localOffset;
				spanEnd = 0;
			}
			cur.add(r);
			spanEnd = Math.max(spanEnd, end);
		}
		if (!cur.isEmpty()) {
			submitBatch(cur);
		}
		smallFiles.clear();
	}

	private void submitBatch(List<EntryRecord> batch) throws IOException {
		ReadSlot slot = takeSlot();
		EntryRecord[] recs = batch.toArray(new EntryRecord[0]);
		submit(recs[0], skip -> {
			try {
				if (!skip) {
					extractBatch(recs, slot);
				}
			} finally {
				giveBack(slot);
			}
		});
	}

	private String rel(EntryRecord r) {
		return r.nameAfter(prefixLength);
	}

	private void extractBatch(EntryRecord[] recs, ReadSlot slot) throws IOException {
		boolean[] skip = new boolean[recs.length];
		int first = -1;
		int last = -1;
		for (int i = 0; i < recs.length; i++) {
			EntryRecord r = recs[i];
			if (checkIdentity && identical(tree.resolve(rel(r)), r, slot.raw)) {
				skip[i] = true;
				skipped.incrementAndGet();
				progress.entryDone(r.size);
				continue;
			}
			if (first < 0) {
				first = i;
			}
			last = i;
		}
		if (first < 0) {
			return;
		}
		long start = recs[first].localOffset;
		long end = start;
		long needed = 0;
		for (int i = first; i <= last; i++) {
			EntryRecord r = recs[i];
			long e = r.localOffset + ZipFormat.LOC_LEN + r.nameLength + LOCAL_EXTRA_GUESS + r.csize;
			end = Math.max(end, e);
			if (!skip[i]) {
				needed += e - r.localOffset;
			}
		}
		end = Math.min(end, reader.centralDirectoryOffset());
		ByteBuffer packed = slot.packed.clear();
		int len = (int) Math.min(end - start, packed.capacity());
		if (needed * 4 < len) {
			// differential extract with few changed entries: read just those
			len = 0;
		} else {
			packed.limit(len);
			reader.readFully(packed, start, recs[first]);
		}
		for (int i = first; i <= last; i++) {
			if (skip[i]) {
				continue;
			}
			if (workers.stopping()) {
				throw new ArchiveCanceledException("extraction canceled: " + archive);
			}
			EntryRecord r = recs[i];
			int at = (int) (r.localOffset - start);
			ByteBuffer buf = packed;
			long bufStart = start;
			int dataIndex = -1;
			if (at + ZipFormat.LOC_LEN <= len) {
				long data = reader.dataOffset(r, packed, at);
				if (data >= 0 && data - start + r.csize <= len) {
					dataIndex = (int) (data - start);
				}
			}
			if (dataIndex < 0 && len == 0) {
				// sparse batch: read this entry alone into the slot (header with a guessed extra length first)
				int n = (int) Math.min(reader.centralDirectoryOffset() - r.localOffset,
						ZipFormat.LOC_LEN + r.nameLength + LOCAL_EXTRA_GUESS + r.csize);
				buf = packed.clear().limit(n);
				bufStart = r.localOffset;
				reader.readFully(buf, r.localOffset, r);
				long data = reader.dataOffset(r, buf, 0);
				if (data >= 0 && data - r.localOffset + r.csize <= n) {
					dataIndex = (int) (data - r.localOffset);
				}
			}
			if (dataIndex < 0) {
				// a local extra field longer than guessed: read this entry on its own
				int n = (int) Math.min(reader.centralDirectoryOffset() - r.localOffset,
						ZipFormat.LOC_LEN + 2L * 0xffff + r.csize);
				buf = ZipFormat.le(ByteBuffer.allocateDirect(n));
				bufStart = r.localOffset;
				reader.readFully(buf, r.localOffset, r);
				long data = reader.dataOffset(r, buf, 0);
				if (data < 0) {
					throw new ArchiveException("local header extends past the central directory", reader.path(),
							r.name(), r.localOffset);
				}
				dataIndex = (int) (data - r.localOffset);
			}
			decodeAndWrite(r, rel(r), buf, dataIndex, bufStart + dataIndex, slot.raw);
		}
	}

	private void decodeAndWrite(EntryRecord r, String rel, ByteBuffer packed, int start, long data,
			ByteBuffer rawBuffer) throws IOException {
		ByteBuffer out;
		if (r.method == ArchiveEntry.METHOD_STORED) {
			out = packed.duplicate().limit(start + (int) r.csize).position(start);
		} else {
			ByteBuffer raw = rawBuffer.clear();
			int got;
			try {
				got = context().decompressDirectByteBuffer(raw, 0, (int) r.size, packed, start, (int) r.csize);
			} catch (RuntimeException e) {
				throw new ArchiveException("corrupt zstd data: " + e.getMessage(), archive, r.name(), data, e);
			}
			if (got != r.size) {
				throw bad("entry decompresses to " + got + " bytes, declared " + r.size, r, data);
			}
			out = raw.limit(got).position(0);
		}
		CRC32 crc = new CRC32();
		crc.update(out.duplicate());
		if ((int) crc.getValue() != r.crc) {
			throw bad("CRC-32 mismatch", r, data);
		}
		if (verifying()) {
			progress.entryDone(r.size);
			return;
		}
		tree.writeFile(rel, out, r);
		bytesWritten.addAndGet(r.size);
		progress.entryDone(r.size);
	}

	/** Differential identity ({@link DiskIdentity}), looked up here only when no plan said what to write. */
	private boolean identical(Path file, EntryRecord r, ByteBuffer buf) throws IOException {
		return DiskIdentity.identical(file, r, options, buf);
	}

	private void submitChunked(EntryRecord r, String rel) throws IOException {
		if (checkIdentity) {
			ReadSlot s = takeSlot();
			try {
				if (identical(tree.resolve(rel), r, s.raw)) {
					skipped.incrementAndGet();
					progress.entryDone(r.size);
					return;
				}
			} finally {
				giveBack(s);
			}
		}
		long data = reader.dataOffset(r);
		TargetTree.Temporary tmp = verifying() ? null : tree.newTemporary(rel, r);
		int n = r.chunkCsize.length;
		LargeOut lo = new LargeOut(r, rel, tmp, n);
		long off = data;
		for (int i = 0; i < n; i++) {
			int index = i;
			long at = off;
			off += Integer.toUnsignedLong(r.chunkCsize[i]);
			ReadSlot slot;
			try {
				slot = takeSlot();
			} catch (IOException e) {
				lo.failed = true;
				for (int k = i; k < n; k++) {
					lo.chunkDone();
				}
				throw e;
			}
			submit(r, skip -> {
				try {
					if (skip || lo.failed) {
						lo.failed = true;
						return;
					}
					extractChunk(lo, index, at, slot);
				} catch (IOException | RuntimeException | Error e) {
					lo.failed = true;
					throw e;
				} finally {
					giveBack(slot);
					lo.chunkDone();
				}
			});
		}
	}

	private void extractChunk(LargeOut lo, int i, long at, ReadSlot slot) throws IOException {
		EntryRecord r = lo.record;
		int csize = r.chunkCsize[i];
		long len = Math.min(r.chunkSize, r.size - (long) i * r.chunkSize);
		if (csize > slot.packed.capacity()) {
			throw bad("frame " + i + " larger than its bound", r, at);
		}
		ByteBuffer packed = slot.packed.clear().limit(csize);
		reader.readFully(packed, at, r);
		ByteBuffer raw = slot.raw.clear();
		int got;
		try {
			got = context().decompressDirectByteBuffer(raw, 0, (int) len, packed, 0, csize);
		} catch (RuntimeException e) {
			throw new ArchiveException("corrupt zstd frame " + i + ": " + e.getMessage(), archive, r.name(), at, e);
		}
		if (got != len) {
			throw bad("frame " + i + " decompresses to " + got + " bytes, expected " + len, r, at);
		}
		raw.limit(got).position(0);
		CRC32 crc = new CRC32();
		crc.update(raw.duplicate());
		if ((int) crc.getValue() != r.chunkCrc[i]) {
			throw bad("CRC-32 mismatch in frame " + i, r, at);
		}
		long pos = (long) i * r.chunkSize;
		while (lo.tmp != null && raw.hasRemaining()) {
			pos += lo.tmp.channel().write(raw, pos);
		}
		progress.bytesDone(got);
	}

	private final class LargeOut {
		final EntryRecord record;
		final String rel;
		/** {@code null} in verify mode */
		final TargetTree.Temporary tmp;
		final AtomicInteger remaining;
		volatile boolean failed;

		LargeOut(EntryRecord record, String rel, TargetTree.Temporary tmp, int n) {
			this.record = record;
			this.rel = rel;
			this.tmp = tmp;
			this.remaining = new AtomicInteger(n);
		}

		void chunkDone() throws IOException {
			if (remaining.decrementAndGet() != 0) {
				return;
			}
			if (tmp == null) { // verify mode
				progress.entryDone(0);
				return;
			}
			if (failed) {
				TargetTree.discard(tmp);
				return;
			}
			try {
				tmp.channel().close();
			} catch (IOException | RuntimeException e) {
				TargetTree.discard(tmp);
				throw e;
			}
			// frame CRCs were verified one by one and combine to the entry CRC (checked when the index was read)
			tree.moveIntoPlace(tmp, rel, record);
			bytesWritten.addAndGet(record.size);
			progress.entryDone(0);
		}
	}

	private void extractStreaming(EntryRecord r, String rel) throws IOException {
		if (verifying()) {
			try (InputStream in = new EntryInputStream(reader, r, reader.dataOffset(r))) {
				byte[] buf = new byte[1 << 16];
				int n;
				while ((n = in.read(buf)) >= 0) {
					progress.bytesDone(n);
					if (workers.stopping()) {
						throw new ArchiveCanceledException("verification canceled: " + archive);
					}
				}
			}
			progress.entryDone(0);
			return;
		}
		if (checkIdentity) {
			ByteBuffer buf = ByteBuffer.allocate(1 << 16);
			if (identical(tree.resolve(rel), r, buf)) {
				skipped.incrementAndGet();
				progress.entryDone(r.size);
				return;
			}
		}
		TargetTree.Temporary tmp = tree.newTemporary(rel, r);
		boolean ok = false;
		try (InputStream in = new EntryInputStream(reader, r, reader.dataOffset(r)); FileChannel ch = tmp.channel()) {
			byte[] buf = new byte[1 << 16];
			ByteBuffer bb = ByteBuffer.wrap(buf);
			int n;
			while ((n = in.read(buf)) >= 0) {
				bb.clear().limit(n);
				while (bb.hasRemaining()) {
					ch.write(bb);
				}
				progress.bytesDone(n);
				if (workers.stopping()) {
					throw new ArchiveCanceledException("extraction canceled: " + archive);
				}
			}
			ok = true;
		} finally {
			if (!ok) {
				TargetTree.discard(tmp);
			}
		}
		tree.moveIntoPlace(tmp, rel, r);
		bytesWritten.addAndGet(r.size);
		progress.entryDone(0);
	}

	// ---------------------------------------------------------------- directories, links, mirror

	private void createLink(EntryRecord r, String rel) throws IOException {
		byte[] bytes = reader.readAllBytes(r.name(), MAX_LINK);
		String target = new String(bytes, StandardCharsets.UTF_8);
		if (target.isEmpty() || target.indexOf('\0') >= 0) {
			throw bad("invalid symbolic link target", r, r.localOffset);
		}
		Path linkTarget = root.getFileSystem().getPath(target);
		if (!tree.contains(rel, linkTarget)) {
			if (options.skipUnsafeLinks()) {
				linksLeftOut = true;
				skipped.incrementAndGet();
				progress.entryDone(0);
				return;
			}
			throw bad("symbolic link points outside the target directory: " + target, r, r.localOffset);
		}
		if (!tree.link(rel, linkTarget)) {
			skipped.incrementAndGet(); // the same link was there
		}
		progress.entryDone(0);
	}

	/**
	 * Deletes what the target holds that the selected entries do not: a walk of the target's folders that compares
	 * each folder's listing with what it is to hold ({@link ExpectedTree}); no stat per file, links never followed.
	 */
	private List<String> mirror(List<EntryRecord> selected, String prefix, List<String> listed) throws IOException {
		ExpectedTree expected = new ExpectedTree(prefix, selected, name -> {
			EntryRecord r = reader.record(name);
			return r != null && r.type != EntryType.DIRECTORY;
		}, key -> {
			EntryRecord folder = reader.record(key + '/');
			return folder != null && folder.listed ? folder.mtime() : null;
		});
		return tree.mirror(expected, !linksLeftOut, tree.folderTimesFollowNames(), listed);
	}

	/**
	 * Gives a folder its entry's time once its names are exactly those of the entry's folder: a folder this
	 * extraction made, or, when it mirrors, one it wrote into or listed (deleting what it did not expect). Where the
	 * archive marks the folder {@linkplain EntryRecord#listed listed}, that time then vouches for its names at the
	 * next mirror, which need not list it. A folder left as it was keeps its time: an exact restore changes no
	 * folder's metadata. Without the mirror, a folder that was there may hold more than the archive: it keeps the
	 * time its last change gave it.
	 */
	private void setFolderTimes(List<EntryRecord> dirs, String prefix, List<String> listed) throws IOException {
		if (dirs.isEmpty()) {
			return;
		}
		Set<String> exact = new HashSet<>(options.mirror() ? tree.foldersChanged() : tree.foldersMade());
		if (options.mirror()) {
			exact.addAll(listed);
		}
		for (EntryRecord r : dirs) {
			String rel = r.nameAfter(prefixLength);
			rel = rel.substring(0, rel.length() - 1); // (a folder's name ends with '/')
			if (exact.contains(rel)) {
				tree.setTimes(rel, r.mtime());
			}
		}
	}

}
