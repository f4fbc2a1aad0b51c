package dev.branchstate.archive.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.branchstate.archive.ArchiveEntry;
import dev.branchstate.archive.ArchiveException;
import dev.branchstate.archive.ArchiveReader;
import dev.branchstate.archive.EntryType;
import dev.branchstate.archive.ExtractOptions;
import dev.branchstate.archive.ExtractPlan;
import dev.branchstate.archive.ExtractResult;

/**
 * Reads the central directory once into an index (array + hash map by name) and validates every record against
 * the file's bounds, so later reads can trust offsets and sizes. All reads are positional.
 */
public final class IndexedArchiveReader implements ArchiveReader {

	/** Central directories above this size are refused (about 8 million entries). */
	static final long MAX_CENTRAL_DIRECTORY = 1L << 30;
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
	/** The entries as the API gives them, made on the first call of {@link #entries()} (a restore needs none). */
	private volatile List<ArchiveEntry> entries;
	private final long centralDirectoryOffset;
	/** Whether the central directory was checked against the CRC-32 its writer recorded (ours since it records one). */
	private final boolean centralDirectoryChecked;
	private final int bufferSize;
	private volatile boolean closed;

	private IndexedArchiveReader(Path path, ArchiveBytes channel, EntryRecord[] records, long cdOffset,
			boolean centralDirectoryChecked) {
		this.path = path;
		this.channel = channel;
		this.records = records;
		this.centralDirectoryOffset = cdOffset;
		this.centralDirectoryChecked = centralDirectoryChecked;
		int buf = DEFAULT_BUFFER;
		for (EntryRecord r : records) {
			if (r.chunked()) {
				if (r.chunkSize <= MAX_BUFFER) {
					buf = Math.max(buf, r.chunkSize);
				}
			}
		}
		this.bufferSize = buf;
		// region of each entry = up to the next local header: lets a differential save copy runs verbatim
		EntryRecord[] byOffset = records.clone();
		java.util.Arrays.sort(byOffset, java.util.Comparator.comparingLong(r -> r.localOffset));
		for (int i = 0; i < byOffset.length; i++) {
			EntryRecord r = byOffset[i];
			long end = i + 1 < byOffset.length ? byOffset[i + 1].localOffset : cdOffset;
			long min = ZipFormat.LOC_LEN + r.nameLength + r.csize;
			long len = end - r.localOffset;
			r.regionEnd = len >= min && len <= min + 0xffff + 24 ? end : -1;
		}
	}

	public static IndexedArchiveReader open(Path path) throws IOException {
		ArchiveBytes ch = ArchiveBytes.open(path);
		try {
			CentralDirectoryParser p = new CentralDirectoryParser(path, ch);
			EntryRecord[] recs = p.parse();
			return new IndexedArchiveReader(path, ch, recs, p.cdOffset, p.cdChecked);
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
	 * @return the bytes the entries' local headers and data take, out of the archive's bytes before its central
	 *         directory: what a write sharing them keeps alive (the rest is dead: replaced entries, old directories)
	 */
	long liveBytes() {
		long live = 0;
		for (EntryRecord r : records) {
			live += ZipFormat.LOC_LEN + r.nameLength + r.csize;
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
	 * Central-directory indices sorted by name, made on first use: the names under a prefix are one range of it,
	 * and a name is found by a binary search (4 bytes an entry, where a hash map would take ten times that).
	 */
	private volatile int[] nameOrder;

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
		int[] order = nameOrder();
		int lo = firstAtLeast(order, prefix); // every name that starts with the prefix follows, together
		int end = lo;
		while (end < order.length && records[order[end]].name.startsWith(prefix)) {
			end++;
		}
		int[] under = Arrays.copyOfRange(order, lo, end);
		Arrays.sort(under);
		return under;
	}

	private int[] nameOrder() {
		int[] order = nameOrder;
		if (order == null) {
			Integer[] boxed = new Integer[records.length];
			Arrays.setAll(boxed, i -> i);
			Arrays.sort(boxed, (a, b) -> records[a].name.compareTo(records[b].name));
			order = new int[boxed.length];
			Arrays.setAll(order, i -> boxed[i]);
			nameOrder = order;
		}
		return order;
	}

	/** @return the position in {@code order} of the first name that is not less than {@code name} */
	private int firstAtLeast(int[] order, String name) {
		int lo = 0;
		int hi = order.length;
		while (lo < hi) {
			int mid = (lo + hi) >>> 1;
			if (records[order[mid]].name.compareTo(name) < 0) {
				lo = mid + 1;
			} else {
				hi = mid;
			}
		}
		return lo;
	}

	EntryRecord record(String name) {
		int[] order = nameOrder();
		int at = firstAtLeast(order, name);
		return at < order.length && records[order[at]].name.equals(name) ? records[order[at]] : null;
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
			throw new ArchiveException("local header extends past the central directory", path, r.name,
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
			throw new ArchiveException("bad local header signature", path, r.name, r.localOffset);
		}
		int n = Short.toUnsignedInt(b.getShort(at + 26));
		int e = Short.toUnsignedInt(b.getShort(at + 28));
		if (n != r.nameLength) {
			throw new ArchiveException("local header name length differs from central directory", path, r.name,
					r.localOffset);
		}
		long data = r.localOffset + ZipFormat.LOC_LEN + n + e;
		if (data > centralDirectoryOffset || r.csize > centralDirectoryOffset - data) {
			throw new ArchiveException("entry data extends past the central directory", path, r.name, r.localOffset);
		}
		if (at + ZipFormat.LOC_LEN + n + e > b.limit()) {
			return -1;
		}
		String differs = LocalHeaders.difference(r, b, at, n, e);
		if (differs != null) {
			throw new ArchiveException("local header differs from the central directory (" + differs + ")", path,
					r.name, r.localOffset);
		}
		return data;
	}

	void readFully(ByteBuffer b, long position, EntryRecord r) throws IOException {
		long pos = position;
		try {
			while (b.hasRemaining()) {
				int n = read(b, pos);
				if (n < 0) {
					throw new ArchiveException("unexpected end of archive", path, r == null ? null : r.name, pos);
				}
				pos += n;
			}
		} catch (ArchiveException | dev.branchstate.archive.ArchiveCanceledException e) {
			throw e;
		} catch (IOException e) {
			throw new ArchiveException("cannot read archive: " + e, path, r == null ? null : r.name, pos, e);
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

	// ------------------------------------------------------------------------------------------------------------

	/** Parses end records and central directory, validating every field that later code relies on. */
	static final class CentralDirectoryParser {
		private final Path path;
		private final FileChannel ch;
		long cdOffset;
		boolean cdChecked;

		CentralDirectoryParser(Path path, FileChannel ch) {
			this.path = path;
			this.ch = ch;
		}

		private ArchiveException bad(String msg, String entry, long offset) {
			return new ArchiveException(msg, path, entry, offset);
		}

		private ByteBuffer read(long pos, int len) throws IOException {
			ByteBuffer b = ZipFormat.le(ByteBuffer.allocate(len));
			long p = pos;
			while (b.hasRemaining()) {
				int n = ch.read(b, p);
				if (n < 0) {
					throw bad("unexpected end of archive", null, p);
				}
				p += n;
			}
			return b;
		}

		/**
		 * An archive whose comment is our {@link ZipFormat#CD_CRC_COMMENT} (every archive this engine wrote since the
		 * comment exists) has everything from its central directory to its end record checked against it.
		 */
		private void checkCentralDirectoryCrc(ByteBuffer tail, int eocd, ByteBuffer cd, long cdEnd, long eocdPos)
				throws IOException {
			int length = Short.toUnsignedInt(tail.getShort(eocd + 20));
			byte[] comment = new byte[length];
			tail.get(eocd + ZipFormat.END_LEN, comment);
			String text = new String(comment, StandardCharsets.ISO_8859_1);
			if (!text.startsWith(ZipFormat.CD_CRC_COMMENT)) {
				return; // another writer's archive, or one of ours from before the comment
			}
			long expected;
			try {
				if (length < ZipFormat.CD_CRC_COMMENT_LEN || length > ZipFormat.CD_CRC_COMMENT_LEN
						&& !text.startsWith(ZipFormat.CONTINUES, ZipFormat.CD_CRC_COMMENT_LEN)) {
					throw new NumberFormatException(text);
				}
				// the files continued, after it, were checked when the archive's bytes were opened (ArchiveBytes)
				expected = Long.parseLong(text.substring(ZipFormat.CD_CRC_COMMENT.length(), ZipFormat.CD_CRC_COMMENT_LEN),
						16);
			} catch (NumberFormatException e) {
				throw bad("damaged archive comment (the central directory's checksum): " + text, null, eocdPos);
			}
			java.util.zip.CRC32 crc = new java.util.zip.CRC32();
			crc.update(cd.duplicate().clear());
			if (eocdPos - cdEnd > ZipFormat.ZIP64_END_LEN + ZipFormat.ZIP64_LOC_LEN) {
				// this writer puts nothing there but the Zip64 end record and locator
				throw bad("damaged archive: " + (eocdPos - cdEnd) + " bytes between the central directory and its end"
						+ " record", null, cdEnd);
			}
			if (eocdPos > cdEnd) {
				crc.update(read(cdEnd, (int) (eocdPos - cdEnd)).flip()); // (read leaves the buffer at its end)
			}
			if (crc.getValue() != expected) {
				throw bad("damaged central directory: its CRC-32 is " + String.format("%08x", crc.getValue()) //$NON-NLS-1$
						+ ", the archive was written with " + String.format("%08x", expected), null, cdOffset); //$NON-NLS-1$
			}
			cdChecked = true;
		}

		EntryRecord[] parse() throws IOException {
			long fileSize = ch.size();
			if (fileSize < ZipFormat.END_LEN) {
				throw bad("not a ZIP archive (too short: " + fileSize + " bytes)", null, 0);
			}
			int tailLen = (int) Math.min(fileSize, ZipFormat.END_LEN + 0xffff);
			long tailStart = fileSize - tailLen;
			ByteBuffer tail = read(tailStart, tailLen);
			int eocd = ZipFormat.findEnd(tail, tailLen);
			if (eocd < 0) {
				throw bad("not a ZIP archive (no end of central directory record)", null, fileSize);
			}
			long eocdPos = tailStart + eocd;
			if (tail.getShort(eocd + 4) != 0 || tail.getShort(eocd + 6) != 0) {
				throw bad("multi-volume archives are not supported", null, eocdPos);
			}
			long entries = Short.toUnsignedInt(tail.getShort(eocd + 10));
			long cdSize = Integer.toUnsignedLong(tail.getInt(eocd + 12));
			cdOffset = Integer.toUnsignedLong(tail.getInt(eocd + 16));
			long cdEnd = eocdPos;
			if (eocdPos >= ZipFormat.ZIP64_LOC_LEN) {
				ByteBuffer loc = read(eocdPos - ZipFormat.ZIP64_LOC_LEN, ZipFormat.ZIP64_LOC_LEN);
				if (loc.getInt(0) == ZipFormat.ZIP64_LOC_SIG) {
					long z64 = loc.getLong(8);
					long locPos = eocdPos - ZipFormat.ZIP64_LOC_LEN;
					if (z64 < 0 || z64 > locPos - ZipFormat.ZIP64_END_LEN) {
						throw bad("Zip64 end record offset out of range: " + z64, null, locPos);
					}
					ByteBuffer z = read(z64, ZipFormat.ZIP64_END_LEN);
					if (z.getInt(0) != ZipFormat.ZIP64_END_SIG) {
						throw bad("bad Zip64 end record signature", null, z64);
					}
					entries = z.getLong(32);
					cdSize = z.getLong(40);
					cdOffset = z.getLong(48);
					cdEnd = z64;
					if (entries < 0 || cdSize < 0 || cdOffset < 0) {
						throw bad("negative Zip64 end record field", null, z64);
					}
				}
			}
			if (cdOffset > cdEnd || cdSize > cdEnd - cdOffset) {
				throw bad("central directory (offset " + cdOffset + ", size " + cdSize + ") outside the file", null,
						eocdPos);
			}
			if (cdSize > MAX_CENTRAL_DIRECTORY) {
				throw bad("central directory too large: " + cdSize, null, cdOffset);
			}
			if (entries > cdSize / ZipFormat.CEN_LEN) {
				throw bad("entry count " + entries + " does not fit a central directory of " + cdSize + " bytes",
						null, eocdPos);
			}
			ByteBuffer cd = read(cdOffset, (int) cdSize);
			checkCentralDirectoryCrc(tail, eocd, cd, cdOffset + cdSize, eocdPos);
			EntryRecord[] recs = new EntryRecord[(int) entries];
			Map<String, EntryRecord> seen = HashMap.newHashMap(recs.length);
			CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
					.onUnmappableCharacter(CodingErrorAction.REPORT);
			int p = 0;
			for (int i = 0; i < recs.length; i++) {
				long at = cdOffset + p;
				if (p > cdSize - ZipFormat.CEN_LEN || cd.getInt(p) != ZipFormat.CEN_SIG) {
					throw bad("bad central directory record " + i, null, at);
				}
				int madeBy = Short.toUnsignedInt(cd.getShort(p + 4));
				int method = Short.toUnsignedInt(cd.getShort(p + 10));
				long dos = Integer.toUnsignedLong(cd.getInt(p + 12));
				int crc = cd.getInt(p + 16);
				long csize = Integer.toUnsignedLong(cd.getInt(p + 20));
				long size = Integer.toUnsignedLong(cd.getInt(p + 24));
				int n = Short.toUnsignedInt(cd.getShort(p + 28));
				int e = Short.toUnsignedInt(cd.getShort(p + 30));
				int c = Short.toUnsignedInt(cd.getShort(p + 32));
				int attrs = cd.getInt(p + 38);
				long offset = Integer.toUnsignedLong(cd.getInt(p + 42));
				if ((cd.getShort(p + 8) & 1) != 0) {
					throw bad("encrypted entries are not supported", null, at);
				}
				if ((long) p + ZipFormat.CEN_LEN + n + e + c > cdSize) {
					throw bad("central directory record " + i + " overruns the central directory", null, at);
				}
				byte[] nameBytes = new byte[n];
				cd.get(p + ZipFormat.CEN_LEN, nameBytes);
				String name;
				try {
					CharBuffer cb = utf8.decode(ByteBuffer.wrap(nameBytes));
					name = cb.toString();
				} catch (CharacterCodingException ex) {
					throw bad("entry name is not valid UTF-8", null, at);
				}
				boolean unix = (madeBy >> 8) == 3;
				int unixMode = unix ? (attrs >>> 16) : 0;
				EntryType type;
				if (name.endsWith("/") || (unix && (unixMode & ZipFormat.S_IFMT) == ZipFormat.S_IFDIR)
						|| (!unix && (attrs & 0x10) != 0)) {
					type = EntryType.DIRECTORY;
				} else if (unix && (unixMode & ZipFormat.S_IFMT) == ZipFormat.S_IFLNK) {
					type = EntryType.SYMLINK;
				} else {
					type = EntryType.FILE;
				}
				String problem = Names.problem(name, type == EntryType.DIRECTORY);
				if (problem != null) {
					throw bad("unsafe entry name: " + problem, name, at);
				}
				int mode = unixMode & 07777;
				if (mode == 0) {
					mode = type == EntryType.DIRECTORY ? 0755 : type == EntryType.SYMLINK ? 0777 : 0644;
				}
				// extra fields
				int x = p + ZipFormat.CEN_LEN + n;
				int xEnd = x + e;
				FileTime mtime = null;
				FileTime utTime = null;
				int chunkSize = 0;
				int[] chunkCsize = null;
				int[] chunkCrc = null;
				while (x + 4 <= xEnd) {
					int id = Short.toUnsignedInt(cd.getShort(x));
					int len = Short.toUnsignedInt(cd.getShort(x + 2));
					int d = x + 4;
					if (d + len > xEnd) {
						throw bad("extra field 0x" + Integer.toHexString(id) + " overruns its record", name, at);
					}
					switch (id) {
						case ZipFormat.EXTRA_ZIP64 -> {
							int q = d;
							if (size == ZipFormat.MAX32) {
								size = z64(cd, q, d + len, name, at);
								q += 8;
							}
							if (csize == ZipFormat.MAX32) {
								csize = z64(cd, q, d + len, name, at);
								q += 8;
							}
							if (offset == ZipFormat.MAX32) {
								offset = z64(cd, q, d + len, name, at);
							}
						}
						case ZipFormat.EXTRA_NTFS -> {
							int q = d + 4;
							while (q + 4 <= d + len) {
								int tag = Short.toUnsignedInt(cd.getShort(q));
								int tlen = Short.toUnsignedInt(cd.getShort(q + 2));
								if (tag == 1 && tlen >= 8 && q + 4 + 8 <= d + len) {
									mtime = ZipFormat.fromNtfs(cd.getLong(q + 4));
								}
								q += 4 + tlen;
							}
						}
						case ZipFormat.EXTRA_UT -> {
							if (len >= 5 && (cd.get(d) & 1) != 0) {
								utTime = FileTime.fromMillis(cd.getInt(d + 1) * 1000L);
							}
						}
						case ZipFormat.EXTRA_FRAMES -> {
							if (len < 10 || cd.get(d) != ZipFormat.FRAMES_VERSION) {
								throw bad("bad frame table", name, at);
							}
							chunkSize = cd.getInt(d + 2);
							int count = cd.getInt(d + 6);
							if (chunkSize <= 0 || count <= 0 || count > ZipFormat.MAX_FRAMES || len != 10 + 8 * count) {
								throw bad("bad frame table (chunk size " + chunkSize + ", frames " + count + ")", name,
										at);
							}
							chunkCsize = new int[count];
							chunkCrc = new int[count];
							for (int k = 0; k < count; k++) {
								chunkCsize[k] = cd.getInt(d + 10 + 8 * k);
								chunkCrc[k] = cd.getInt(d + 14 + 8 * k);
							}
						}
						default -> {
							// unknown extra: ignored
						}
					}
					x = d + len;
				}
				if (size < 0 || csize < 0 || offset < 0) {
					throw bad("negative size or offset", name, at);
				}
				if (offset > cdOffset - ZipFormat.LOC_LEN - n || csize > cdOffset - ZipFormat.LOC_LEN - n - offset) {
					throw bad("entry data (offset " + offset + ", size " + csize + ") outside the archive", name, at);
				}
				if (method == ArchiveEntry.METHOD_STORED && csize != size) {
					throw bad("stored entry with compressed size " + csize + " != size " + size, name, at);
				}
				if (type == EntryType.DIRECTORY && size != 0) {
					throw bad("directory entry with data", name, at);
				}
				EntryRecord r = new EntryRecord(name, nameBytes, type, mode,
						mtime != null ? mtime : utTime != null ? utTime : ZipFormat.fromDos(dos));
				r.method = method;
				r.crc = crc;
				r.size = size;
				r.csize = csize;
				r.localOffset = offset;
				r.flags = Short.toUnsignedInt(cd.getShort(p + 8));
				r.dosTime = (int) dos;
				if (chunkCsize != null) {
					validateFrames(r, name, at, chunkSize, chunkCsize, chunkCrc);
					r.chunkSize = chunkSize;
					r.chunkCsize = chunkCsize;
					r.chunkCrc = chunkCrc;
				} else {
					r.chunks = method == ArchiveEntry.METHOD_STORED || csize == 0 ? 1 : 0;
				}
				if (seen.putIfAbsent(name, r) != null) {
					throw bad("duplicate entry name", name, at);
				}
				recs[i] = r;
				p += ZipFormat.CEN_LEN + n + e + c;
			}
			// a file or link may not be the parent of another entry (no writing through links, no conflicts)
			for (EntryRecord r : recs) {
				String nm = r.name;
				int end = nm.endsWith("/") ? nm.length() - 1 : nm.length();
				int slash = nm.lastIndexOf('/', end - 1);
				while (slash > 0) {
					String parent = nm.substring(0, slash);
					EntryRecord pr = seen.get(parent);
					if (pr != null && pr.type != EntryType.DIRECTORY) {
						throw bad("entry below a " + pr.type.name().toLowerCase() + " entry '" + parent + "'", nm,
								r.localOffset);
					}
					if (seen.containsKey(parent + "/")) {
						break; // the directory entry itself has been checked
					}
					slash = nm.lastIndexOf('/', slash - 1);
				}
			}
			return recs;
		}

		private long z64(ByteBuffer cd, int q, int end, String name, long at) throws ArchiveException {
			if (q + 8 > end) {
				throw bad("Zip64 extra field too short", name, at);
			}
			long v = cd.getLong(q);
			if (v < 0) {
				throw bad("Zip64 value overflows: " + Long.toUnsignedString(v), name, at);
			}
			return v;
		}

		private void validateFrames(EntryRecord r, String name, long at, int chunkSize, int[] cs, int[] crcs)
				throws ArchiveException {
			if (r.method != ArchiveEntry.METHOD_ZSTD) {
				throw bad("frame table on a non-zstd entry", name, at);
			}
			long expected = (r.size + chunkSize - 1) / chunkSize;
			if (expected != cs.length) {
				throw bad("frame table has " + cs.length + " frames, size needs " + expected, name, at);
			}
			long sum = 0;
			int crc = 0;
			for (int k = 0; k < cs.length; k++) {
				if (cs[k] <= 0) {
					throw bad("frame " + k + " has compressed size " + Integer.toUnsignedString(cs[k]), name, at);
				}
				sum += cs[k];
				long len = k < cs.length - 1 ? chunkSize : r.size - (long) chunkSize * (cs.length - 1);
				crc = k == 0 ? crcs[0] : Crc32Combine.combine(crc, crcs[k], len);
			}
			if (sum != r.csize) {
				throw bad("frame sizes add up to " + sum + ", not " + r.csize, name, at);
			}
			if (crc != r.crc) {
				throw bad("frame CRCs do not combine to the entry CRC", name, at);
			}
		}
	}
}
