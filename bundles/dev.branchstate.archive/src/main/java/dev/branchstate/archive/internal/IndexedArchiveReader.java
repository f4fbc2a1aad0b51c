package dev.branchstate.archive.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import dev.branchstate.archive.ArchiveEntry;
import dev.branchstate.archive.ArchiveException;
import dev.branchstate.archive.ArchiveReader;
import dev.branchstate.archive.EntryType;
import dev.branchstate.archive.ExtractOptions;
import dev.branchstate.archive.ExtractPlan;
import dev.branchstate.archive.ExtractResult;
import dev.branchstate.archive.KnownContent;

/**
 * An open state archive: its central directory read once and checked ({@link CentralDirectory}) into an index of
 * records, looked up by a binary search over their names, so later reads can trust offsets and sizes. All reads are
 * positional.
 */
public final class IndexedArchiveReader implements ArchiveReader {

	static final int DEFAULT_BUFFER = 1 << 21;
	/**
	 * Frames up to this size are decoded in parallel through reused buffers; an archive declaring larger frames
	 * (a hostile one, or written with a larger chunk size) is decoded by streaming, so its frame table cannot make
	 * the reader allocate more than about buffers x 2 x 16 MiB.
	 */
	static final int MAX_BUFFER = 1 << 24;

	private final Path path;
	private volatile ArchiveBytes channel;
	private final EntryRecord[] records;
	/**
	 * The indices of {@link #records} sorted by name (made by the parse, which finds duplicates in it): the names
	 * under a prefix are one range of it, and a name is found by a binary search (4 bytes an entry, where a hash map
	 * would take ten times that).
	 */
	private final int[] nameOrder;
	/** The entries as the API gives them, made on the first call of {@link #entries()} (a restore needs none). */
	private volatile List<ArchiveEntry> entries;
	private final long centralDirectoryOffset;
	/** Whether the central directory was checked against the CRC-32 its writer recorded (ours since it records one). */
	private final boolean centralDirectoryChecked;
	private final int bufferSize;
	private volatile boolean closed;

	private IndexedArchiveReader(Path path, ArchiveBytes channel, CentralDirectory.Parsed cd) {
		EntryRecord[] records = cd.records();
		this.path = path;
		this.channel = channel;
		this.records = records;
		this.nameOrder = cd.nameOrder();
		this.centralDirectoryOffset = cd.offset();
		this.centralDirectoryChecked = cd.checked();
		int buf = DEFAULT_BUFFER;
		for (EntryRecord r : records) {
			if (r.chunked()) {
				if (r.chunkSize <= MAX_BUFFER) {
					buf = Math.max(buf, r.chunkSize);
				}
			}
		}
		this.bufferSize = buf;
	}

	/**
	 * Sets each record's {@link EntryRecord#regionGap}: up to the next local header, which lets a differential save
	 * copy runs of entries verbatim. Only a save needs it (a sort of every record by offset): not done on open.
	 */
	void findRegions() {
		EntryRecord[] byOffset = records.clone();
		java.util.Arrays.sort(byOffset, java.util.Comparator.comparingLong(r -> r.localOffset));
		for (int i = 0; i < byOffset.length; i++) {
			EntryRecord r = byOffset[i];
			long end = i + 1 < byOffset.length ? byOffset[i + 1].localOffset : centralDirectoryOffset;
			long min = ZipFormat.LOC_LEN + r.nameLength + r.csize;
			long len = end - r.localOffset;
			r.regionGap = len >= min && len <= min + 0xffff + 24 ? (int) (len - min) : -1;
		}
	}

	public static IndexedArchiveReader open(Path path) throws IOException {
		ArchiveBytes ch = ArchiveBytes.open(path);
		try {
			CentralDirectory.Parsed cd = CentralDirectory.read(path, ch);
			return new IndexedArchiveReader(path, ch, cd);
		} catch (IOException | RuntimeException | Error e) {
			ch.close();
			if (e instanceof ArchiveException || e instanceof Error) {
				throw e;
			}
			throw new ArchiveException("cannot read archive: " + e, path, null, -1, e);
		}
	}

	@Override
	public Path path() {
		return path;
	}

	/** @return whether the central directory was checked against the CRC-32 its writer recorded in the comment */
	boolean centralDirectoryChecked() {
		return centralDirectoryChecked;
	}

	/**
	 * Positional read on the shared channel. An interrupt of a reading thread makes the JDK close the channel for
	 * every thread: the interrupted read ends with {@link dev.branchstate.archive.ArchiveCanceledException}, the
	 * channel is reopened and the other threads retry.
	 */
	int read(ByteBuffer b, long position) throws IOException {
		ArchiveBytes ch = channel;
		try {
			return ch.read(b, position);
		} catch (java.nio.channels.ClosedByInterruptException e) {
			reopen(ch);
			Thread.currentThread().interrupt();
			throw new dev.branchstate.archive.ArchiveCanceledException("read interrupted: " + path);
		} catch (java.nio.channels.ClosedChannelException e) {
			if (closed) {
				throw e;
			}
			return reopen(ch).read(b, position);
		}
	}

	private synchronized ArchiveBytes reopen(ArchiveBytes broken) throws IOException {
		if (closed) {
			throw new ArchiveException("reader is closed", path, null, -1);
		}
		if (channel == broken) {
			try {
				broken.close();
			} catch (IOException e) {
				// read-only: nothing to lose
			}
			// opening reads the end of the file: not as the interrupted thread, whose reads the JDK refuses
			boolean interrupted = Thread.interrupted();
			try {
				channel = ArchiveBytes.open(path);
			} finally {
				if (interrupted) {
					Thread.currentThread().interrupt();
				}
			}
		}
		return channel;
	}

	/** @return the archive's bytes: the files it is made of (see {@link ArchiveBytes}) */
	ArchiveBytes bytes() {
		return channel;
	}

	/**
	 * @return the bytes of this archive's entries (local headers, names, data) in each of the files it is made of,
	 *         in the order of {@link ArchiveBytes#files()}
	 */
	long[] liveBytesByFile() {
		long[] starts = channel.starts();
		long[] live = new long[starts.length - 1];
		for (EntryRecord r : records) {
			int f = Arrays.binarySearch(starts, r.localOffset);
			f = Math.min(f >= 0 ? f : -f - 2, live.length - 1);
			live[f] += ZipFormat.LOC_LEN + r.nameLength + r.csize;
		}
		return live;
	}

	int bufferSize() {
		return bufferSize;
	}

	long centralDirectoryOffset() {
		return centralDirectoryOffset;
	}

	EntryRecord[] records() {
		return records;
	}

	/**
	 * @return the central-directory indices of the records whose name starts with {@code prefix}, ascending: a
	 *         binary search, not a scan (a restore asks once per derived folder of every project)
	 */
	int[] indicesUnder(String prefix) {
		if (prefix.isEmpty()) {
			int[] all = new int[records.length];
			Arrays.setAll(all, i -> i);
			return all;
		}
		int[] order = nameOrder;
		byte[] utf8 = prefix.getBytes(StandardCharsets.UTF_8);
		// every name that starts with the prefix follows, together
		int lo = CentralDirectory.firstAtLeast(records, order, utf8);
		int end = order.length;
		for (int from = lo; from < end;) { // binary search for the first that does not start with it
			int mid = (from + end) >>> 1;
			if (records[order[mid]].nameStartsWith(utf8)) {
				from = mid + 1;
			} else {
				end = mid;
			}
		}
		int[] under = Arrays.copyOfRange(order, lo, end);
		Arrays.sort(under);
		return under;
	}

	EntryRecord record(String name) {
		return record(name.getBytes(StandardCharsets.UTF_8));
	}

	/**
	 * A lookup of names asked in about the order of the index (a walk of a tree, as a save's of the tree the previous
	 * archive was written from): the name after the one found last is tried first, and the one after it (the first
	 * may be a folder's), a binary search only when neither is the name. Not thread-safe.
	 */
	final class Cursor {
		private int next;

		/** @param name the name in UTF-8 */
		EntryRecord find(byte[] name) {
			int at = positionOf(name);
			return at < 0 ? null : records[nameOrder[at]];
		}

		/**
		 * @param name the name in UTF-8
		 * @return its position in the name order, -1 when no entry has it
		 */
		int positionOf(byte[] name) {
			int[] order = nameOrder;
			for (int k = next; k < Math.min(next + 2, order.length); k++) { // (or after a folder's entry)
				if (records[order[k]].nameIs(name)) {
					next = k + 1;
					return k;
				}
			}
			int at = IndexedArchiveReader.this.positionOf(name);
			if (at >= 0) {
				next = at + 1;
			}
			return at;
		}

		/**
		 * Puts {@code r}, a record of the name found last, in this index in place of the record found: a writer's
		 * new record of a file whose previous entry this index held. The record found is then held only by the work
		 * that still reads its bytes, so a save that writes most files again holds one record a file, not two. The
		 * index is then a writer's, no longer its archive's: only for a save's previous archive, whose names the
		 * writer looks up once each.
		 */
		void supersedeFound(EntryRecord r) {
			int at = next - 1;
			if (at < 0 || records[nameOrder[at]].compareName(r) != 0) {
				throw new IllegalStateException("not the name found last: " + r.name());
			}
			records[nameOrder[at]] = r;
		}
	}

	/** @return the index in the central directory of the entry of that name, -1 when there is none */
	int indexOf(String name) {
		int at = positionOf(name.getBytes(StandardCharsets.UTF_8));
		return at < 0 ? -1 : nameOrder[at];
	}

	/** @return the record at {@code position} in the name order */
	EntryRecord recordAt(int position) {
		return records[nameOrder[position]];
	}

	@Override
	public KnownContent knownContentOf(Path other) throws IOException {
		return KnownEntries.read(this, other);
	}

	/** @param name the name in UTF-8 */
	EntryRecord record(byte[] name) {
		int at = positionOf(name);
		return at < 0 ? null : records[nameOrder[at]];
	}

	/** @return the position of the name (UTF-8) in the name order, -1 when no entry has it */
	int positionOf(byte[] name) {
		int at = CentralDirectory.firstAtLeast(records, nameOrder, name);
		return at < nameOrder.length && records[nameOrder[at]].nameIs(name) ? at : -1;
	}

	@Override
	public List<ArchiveEntry> entries() {
		List<ArchiveEntry> list = entries;
		if (list == null) {
			list = Arrays.stream(records).map(EntryRecord::toEntry).toList();
			entries = list;
		}
		return list;
	}

	@Override
	public List<ArchiveEntry> entries(String prefix) {
		int[] under = indicesUnder(prefix);
		List<ArchiveEntry> l = new ArrayList<>(under.length);
		for (int i : under) {
			l.add(records[i].toEntry());
		}
		return l;
	}

	@Override
	public long fileCount(String prefix) {
		long count = 0;
		for (int i : indicesUnder(prefix)) {
			if (records[i].type == EntryType.FILE) {
				count++;
			}
		}
		return count;
	}

	@Override
	public Optional<ArchiveEntry> entry(String name) {
		EntryRecord r = record(name);
		return r == null ? Optional.empty() : Optional.of(r.toEntry());
	}

	/**
	 * Reads the local header of an entry and returns the offset of its data (the header validated against the file
	 * and the entry's central directory record).
	 */
	long dataOffset(EntryRecord r) throws IOException {
		long data = dataOffset(r,
				readHeader(r, ZipFormat.LOC_LEN + r.nameLength + ZipFormat.LOCAL_ZIP64_EXTRA_LEN), 0);
		if (data < 0) { // a longer extra field (another writer's)
			data = dataOffset(r, readHeader(r, ZipFormat.LOC_LEN + 2 * 0xffff), 0);
		}
		if (data < 0) {
			throw new ArchiveException("local header extends past the central directory", path, r.name(),
					r.localOffset);
		}
		return data;
	}

	private ByteBuffer readHeader(EntryRecord r, int length) throws IOException {
		int n = (int) Math.min(length, Math.max(0, centralDirectoryOffset - r.localOffset));
		ByteBuffer b = ZipFormat.le(ByteBuffer.allocate(n));
		readFully(b, r.localOffset, r);
		return b;
	}

	/**
	 * Validates the local header held in {@code b} at {@code at} (up to {@code b.limit()}): its signature, and that
	 * it says what the entry's central directory record says (name, flags, method, time, CRC-32 and sizes, which a
	 * data descriptor may leave out), so that a damaged header is found although no byte of the data changed.
	 *
	 * @return the absolute data offset, or -1 when {@code b} does not hold the whole header (name and extra field)
	 */
	long dataOffset(EntryRecord r, ByteBuffer b, int at) throws ArchiveException {
		if (at + ZipFormat.LOC_LEN > b.limit()) {
			return -1;
		}
		if (b.getInt(at) != ZipFormat.LOC_SIG) {
			throw new ArchiveException("bad local header signature", path, r.name(), r.localOffset);
		}
		int n = Short.toUnsignedInt(b.getShort(at + 26));
		int e = Short.toUnsignedInt(b.getShort(at + 28));
		if (n != r.nameLength) {
			throw new ArchiveException("local header name length differs from central directory", path, r.name(),
					r.localOffset);
		}
		long data = r.localOffset + ZipFormat.LOC_LEN + n + e;
		if (data > centralDirectoryOffset || r.csize > centralDirectoryOffset - data) {
			throw new ArchiveException("entry data extends past the central directory", path, r.name(), r.localOffset);
		}
		if (at + ZipFormat.LOC_LEN + n + e > b.limit()) {
			return -1;
		}
		String differs = LocalHeaders.difference(r, b, at, n, e);
		if (differs != null) {
			throw new ArchiveException("local header differs from the central directory (" + differs + ")", path,
					r.name(), r.localOffset);
		}
		return data;
	}

	void readFully(ByteBuffer b, long position, EntryRecord r) throws IOException {
		long pos = position;
		try {
			while (b.hasRemaining()) {
				int n = read(b, pos);
				if (n < 0) {
					throw new ArchiveException("unexpected end of archive", path, r == null ? null : r.name(), pos);
				}
				pos += n;
			}
		} catch (ArchiveException | dev.branchstate.archive.ArchiveCanceledException e) {
			throw e;
		} catch (IOException e) {
			throw new ArchiveException("cannot read archive: " + e, path, r == null ? null : r.name(), pos, e);
		}
	}

	@Override
	public InputStream openStream(String name) throws IOException {
		EntryRecord r = record(name);
		if (r == null) {
			throw new ArchiveException("no such entry", path, name, -1);
		}
		return new EntryInputStream(this, r, dataOffset(r));
	}

	@Override
	public byte[] readAllBytes(String name, int maxSize) throws IOException {
		EntryRecord r = record(name);
		if (r == null) {
			throw new ArchiveException("no such entry", path, name, -1);
		}
		if (r.size > maxSize) {
			throw new ArchiveException("entry larger than " + maxSize + " bytes: " + r.size, path, name,
					r.localOffset);
		}
		try (InputStream in = openStream(name)) {
			byte[] data = new byte[(int) r.size];
			int off = 0;
			while (off < data.length) {
				int n = in.read(data, off, data.length - off);
				if (n < 0) {
					break;
				}
				off += n;
			}
			if (in.read() >= 0 || off != data.length) {
				throw new ArchiveException("entry size differs from the declared size", path, name, r.localOffset);
			}
			return data;
		}
	}

	@Override
	public ExtractResult extract(Path targetDirectory, ExtractOptions options) throws IOException {
		if (closed) {
			throw new IllegalStateException("reader is closed: " + path);
		}
		return new Extractor(this, targetDirectory, options).run();
	}

	@Override
	public void verify(List<String> prefixes, ExtractOptions options) throws IOException {
		if (closed) {
			throw new IllegalStateException("reader is closed: " + path);
		}
		Extractor.verifier(this, prefixes, List.of(), options).run();
	}

	@Override
	public void verify(List<String> prefixes, Collection<ExtractPlan> plans, ExtractOptions options)
			throws IOException {
		if (closed) {
			throw new IllegalStateException("reader is closed: " + path);
		}
		Extractor.verifier(this, prefixes, plans, options).run();
	}

	@Override
	public ExtractPlan plan(Path targetDirectory, ExtractOptions options) throws IOException {
		if (closed) {
			throw new IllegalStateException("reader is closed: " + path);
		}
		return Planner.plan(this, targetDirectory, options);
	}

	@Override
	public synchronized void close() {
		if (closed) {
			return;
		}
		closed = true;
		try {
			channel.close();
		} catch (IOException e) {
			// read-only: nothing to lose
		}
	}
}
