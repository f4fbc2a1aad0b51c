package dev.branchstate.archive.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.IntStream;

import dev.branchstate.archive.ArchiveEntry;
import dev.branchstate.archive.ArchiveException;
import dev.branchstate.archive.EntryType;
import dev.branchstate.archive.internal.ZipFormat.Growable;

/**
 * The central directory of a state archive and the end records after it, in one place: written by the writer
 * ({@link #write}) and parsed by the reader ({@link #read}), which checks every field later code relies on against
 * the file's bounds and, for an archive of this engine, the whole against the CRC-32 its comment records.
 */
final class CentralDirectory {

	/** Central directories above this size are refused (about 8 million entries). */
	static final long MAX_SIZE = 1L << 30;

	/** Records per slice of a parse in parallel, at least. */
	private static final int PARSE_SLICE = 8192;
	/** The most bytes of a central directory its parse holds at once (a record is at most ~192 kB). */
	static final int CHUNK = 8 << 20;

	/**
	 * What the reader found: the entries in central directory order, their indices in name order, where the directory
	 * starts, whether its CRC-32 was checked.
	 */
	record Parsed(EntryRecord[] records, int[] nameOrder, long offset, boolean checked) {
	}

	private CentralDirectory() {
	}

	/** Where the bytes of a central directory go as they are made, in order. */
	@FunctionalInterface
	interface Sink {
		void write(ByteBuffer bytes) throws IOException;
	}

	/** The most bytes of a directory held before they go to the {@link Sink}. */
	static final int SLICE = 1 << 20;

	/**
	 * Writes the central directory and end records to {@code sink}, about {@link #SLICE} bytes at a time: the heap
	 * holds a slice, not the directory (~250 bytes an entry: 250 MB at 1,000,000 entries, and half as much again
	 * while a buffer holding it all grew).
	 *
	 * @param records   the entries, in the order the directory lists them
	 * @param offset    where the directory starts in the archive's bytes
	 * @param continued the files the archive continues (recorded in the comment), or none
	 * @return the bytes written
	 */
	static long write(List<EntryRecord> records, long offset, List<ArchiveBytes.Continued> continued, Sink sink)
			throws IOException {
		Growable slice = new Growable();
		java.util.zip.CRC32 crc = new java.util.zip.CRC32();
		ZoneId zone = ZoneId.systemDefault(); // once: each call clones the default time zone
		long flushed = 0;
		for (EntryRecord r : records) {
			putRecord(slice, r, zone);
			if (slice.size() >= SLICE) {
				ByteBuffer b = slice.flip();
				crc.update(b.duplicate());
				flushed += b.remaining();
				sink.write(b);
				slice.clear();
			}
		}
		putEnd(slice, records.size(), offset, flushed + slice.size(), continued, crc);
		ByteBuffer b = slice.flip();
		long written = flushed + b.remaining();
		sink.write(b);
		return written;
	}

	/** Reads and checks the end records and central directory of the archive {@code path}, open as {@code ch}. */
	static Parsed read(Path path, FileChannel ch) throws IOException {
		return read(path, ch, CHUNK);
	}

	/** @param chunk the most bytes of the directory held at once (tests: small ones, records across chunks) */
	static Parsed read(Path path, FileChannel ch, int chunk) throws IOException {
		Parser p = new Parser(path, ch, chunk);
		EntryRecord[] records = p.parse();
		return new Parsed(records, p.nameOrder, p.cdOffset, p.cdChecked);
	}

	/**
	 * Reads the central directory of the archive {@code path}, open as {@code ch}, handing each record to
	 * {@code visitor} once its chunk is parsed and keeping none: the heap holds one chunk's records at a time. Only for
	 * an archive whose comment records the directory's CRC-32 (this engine's); that is checked after the last record
	 * was handed over, so what the visitor made of them is to be dropped when this throws. The names are checked one by
	 * one, as an index's are, but not against each other (duplicates, an entry below a file): the visitor sees them.
	 */
	static void visit(Path path, FileChannel ch, Consumer<EntryRecord> visitor) throws IOException {
		visit(path, ch, CHUNK, visitor);
	}

	/** @param chunk the most bytes of the directory held at once (tests: small ones, records across chunks) */
	static void visit(Path path, FileChannel ch, int chunk, Consumer<EntryRecord> visitor) throws IOException {
		new Parser(path, ch, chunk).visit(visitor);
	}

	/** @return the indices of the records sorted by name (as unsigned bytes of UTF-8: by code point) */
	static int[] nameOrder(EntryRecord[] records) {
		Integer[] boxed = new Integer[records.length];
		Arrays.setAll(boxed, i -> i);
		Arrays.parallelSort(boxed, (a, b) -> records[a].compareName(records[b]));
		int[] order = new int[boxed.length];
		Arrays.setAll(order, i -> boxed[i]);
		return order;
	}

	/** @return the position in {@code order} of the first name that is not less than {@code name} (UTF-8) */
	static int firstAtLeast(EntryRecord[] records, int[] order, byte[] name) {
		int lo = 0;
		int hi = order.length;
		while (lo < hi) {
			int mid = (lo + hi) >>> 1;
			if (records[order[mid]].compareName(name) < 0) {
				lo = mid + 1;
			} else {
				hi = mid;
			}
		}
		return lo;
	}

	/** Appends one central directory record. */
	private static void putRecord(Growable out, EntryRecord r, ZoneId zone) {
		boolean bigSize = r.size >= ZipFormat.MAX32;
		boolean bigCsize = r.csize >= ZipFormat.MAX32;
		boolean bigOffset = r.localOffset >= ZipFormat.MAX32;
		int zip64Len = (bigSize ? 8 : 0) + (bigCsize ? 8 : 0) + (bigOffset ? 8 : 0);
		int extraLen = (zip64Len > 0 ? 4 + zip64Len : 0) + 36 + 9
				+ (r.chunked() ? 4 + 10 + 8 * r.chunkCsize.length : 0) + (r.listed ? 4 : 0);
		ByteBuffer b = out.reserve(ZipFormat.CEN_LEN + r.nameLength + extraLen);
		int p = b.position();
		long dos = ZipFormat.dosDateTime(r.mtime(), zone);
		b.putInt(p, ZipFormat.CEN_SIG);
		b.putShort(p + 4, (short) ((3 << 8) | 63));
		b.putShort(p + 6, (short) ZipFormat.versionNeeded(r.method, zip64Len > 0));
		b.putShort(p + 8, (short) ZipFormat.FLAG_UTF8);
		b.putShort(p + 10, (short) r.method);
		b.putInt(p + 12, (int) dos);
		b.putInt(p + 16, r.crc);
		b.putInt(p + 20, bigCsize ? -1 : (int) r.csize);
		b.putInt(p + 24, bigSize ? -1 : (int) r.size);
		b.putShort(p + 28, (short) r.nameLength);
		b.putShort(p + 30, (short) extraLen);
		b.putShort(p + 32, (short) 0);
		b.putShort(p + 34, (short) 0);
		b.putShort(p + 36, (short) 0);
		b.putInt(p + 38, (ZipFormat.unixMode(r) << 16) | (r.type == EntryType.DIRECTORY ? 0x10 : 0));
		b.putInt(p + 42, bigOffset ? -1 : (int) r.localOffset);
		r.putName(b, p + ZipFormat.CEN_LEN);
		int e = p + ZipFormat.CEN_LEN + r.nameLength;
		if (zip64Len > 0) {
			b.putShort(e, (short) ZipFormat.EXTRA_ZIP64);
			b.putShort(e + 2, (short) zip64Len);
			e += 4;
			if (bigSize) {
				b.putLong(e, r.size);
				e += 8;
			}
			if (bigCsize) {
				b.putLong(e, r.csize);
				e += 8;
			}
			if (bigOffset) {
				b.putLong(e, r.localOffset);
				e += 8;
			}
		}
		long ntfs = ZipFormat.toNtfs(r.mtime());
		b.putShort(e, (short) ZipFormat.EXTRA_NTFS);
		b.putShort(e + 2, (short) 32);
		b.putInt(e + 4, 0);
		b.putShort(e + 8, (short) 1);
		b.putShort(e + 10, (short) 24);
		b.putLong(e + 12, ntfs);
		b.putLong(e + 20, ntfs);
		b.putLong(e + 28, ntfs);
		e += 36;
		b.putShort(e, (short) ZipFormat.EXTRA_UT);
		b.putShort(e + 2, (short) 5);
		b.put(e + 4, (byte) 1);
		b.putInt(e + 5, (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, r.mtime().to(TimeUnit.SECONDS))));
		e += 9;
		if (r.chunked()) {
			b.putShort(e, (short) ZipFormat.EXTRA_FRAMES);
			b.putShort(e + 2, (short) (10 + 8 * r.chunkCsize.length));
			b.put(e + 4, (byte) ZipFormat.FRAMES_VERSION);
			b.put(e + 5, (byte) 0);
			b.putInt(e + 6, r.chunkSize);
			b.putInt(e + 10, r.chunkCsize.length);
			e += 14;
			for (int i = 0; i < r.chunkCsize.length; i++) {
				b.putInt(e, r.chunkCsize[i]);
				b.putInt(e + 4, r.chunkCrc[i]);
				e += 8;
			}
		}
		if (r.listed) {
			b.putShort(e, (short) ZipFormat.EXTRA_LISTED);
			b.putShort(e + 2, (short) 0);
			e += 4;
		}
		b.position(e);
	}

	/**
	 * Appends the end records (Zip64 ones when needed), the end record with the {@link ZipFormat#CD_CRC_COMMENT} of
	 * all that {@code out} holds before it and what {@code crc} was updated with before (the directory's slices
	 * written already).
	 *
	 * @param continued the files the archive continues, whose sizes and end CRC-32s its comment records after the
	 *                  central directory's CRC-32
	 */
	private static void putEnd(Growable out, long entries, long cdOffset, long cdSize,
			java.util.List<ArchiveBytes.Continued> continued, java.util.zip.CRC32 crc) {
		boolean zip64 = entries >= ZipFormat.MAX16 || cdOffset >= ZipFormat.MAX32 || cdSize >= ZipFormat.MAX32;
		if (zip64) {
			long z64Offset = cdOffset + cdSize;
			ByteBuffer b = out.reserve(ZipFormat.ZIP64_END_LEN + ZipFormat.ZIP64_LOC_LEN);
			int p = b.position();
			b.putInt(p, ZipFormat.ZIP64_END_SIG);
			b.putLong(p + 4, ZipFormat.ZIP64_END_LEN - 12);
			b.putShort(p + 12, (short) ((3 << 8) | 63));
			b.putShort(p + 14, (short) 45);
			b.putInt(p + 16, 0);
			b.putInt(p + 20, 0);
			b.putLong(p + 24, entries);
			b.putLong(p + 32, entries);
			b.putLong(p + 40, cdSize);
			b.putLong(p + 48, cdOffset);
			p += ZipFormat.ZIP64_END_LEN;
			b.putInt(p, ZipFormat.ZIP64_LOC_SIG);
			b.putInt(p + 4, 0);
			b.putLong(p + 8, z64Offset);
			b.putInt(p + 16, 1);
			b.position(p + ZipFormat.ZIP64_LOC_LEN);
		}
		crc.update(out.flip());
		StringBuilder text = new StringBuilder(ZipFormat.CD_CRC_COMMENT).append(String.format("%08x", Long.valueOf(crc.getValue()))); //$NON-NLS-1$
		for (int i = 0; i < continued.size(); i++) {
			text.append(i == 0 ? ZipFormat.CONTINUES : ",").append(continued.get(i).size()).append(':') //$NON-NLS-1$
					.append(String.format("%08x", Integer.valueOf(continued.get(i).tailCrc()))); //$NON-NLS-1$
		}
		byte[] comment = text.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
		ByteBuffer b = out.reserve(ZipFormat.END_LEN + comment.length);
		int p = b.position();
		b.putInt(p, ZipFormat.END_SIG);
		b.putShort(p + 4, (short) 0);
		b.putShort(p + 6, (short) 0);
		short n = (short) (zip64 ? ZipFormat.MAX16 : entries);
		b.putShort(p + 8, n);
		b.putShort(p + 10, n);
		b.putInt(p + 12, zip64 ? -1 : (int) cdSize);
		b.putInt(p + 16, zip64 ? -1 : (int) cdOffset);
		b.putShort(p + 20, (short) comment.length);
		b.put(p + ZipFormat.END_LEN, comment);
		b.position(p + ZipFormat.END_LEN + comment.length);
	}

	/**
	 * @return the position in {@code tail} (the last {@code tailLen} bytes of a file) of the end of central directory
	 *         record whose comment ends the file, -1 when there is none
	 */
	static int findEnd(ByteBuffer tail, int tailLen) {
		for (int i = tailLen - ZipFormat.END_LEN; i >= 0; i--) {
			if (tail.getInt(i) == ZipFormat.END_SIG && i + ZipFormat.END_LEN + Short.toUnsignedInt(tail.getShort(i + 20)) == tailLen) {
				return i;
			}
		}
		return -1;
	}

	/** Parses end records and central directory, validating every field that later code relies on. */
	private static final class Parser {
		private final Path path;
		private final FileChannel ch;
		long cdOffset;
		boolean cdChecked;
		int[] nameOrder;
		/** the end records': the entries, the directory's size, the CRC-32 the comment records (or -1), where it is */
		private int entries;
		private long cdSize;
		private long expectedCrc;
		private long eocdPos;

		private final int chunkSize;

		Parser(Path path, FileChannel ch, int chunkSize) {
			this.path = path;
			this.ch = ch;
			this.chunkSize = chunkSize;
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
		 *
		 * @return the CRC-32 the comment records, -1 when it records none (another writer's archive, or one of ours
		 *         from before the comment)
		 */
		private long recordedCrc(ByteBuffer tail, int eocd, long eocdPos) throws ArchiveException {
			int length = Short.toUnsignedInt(tail.getShort(eocd + 20));
			byte[] comment = new byte[length];
			tail.get(eocd + ZipFormat.END_LEN, comment);
			String text = new String(comment, StandardCharsets.ISO_8859_1);
			if (!text.startsWith(ZipFormat.CD_CRC_COMMENT)) {
				return -1;
			}
			try {
				if (length < ZipFormat.CD_CRC_COMMENT_LEN || length > ZipFormat.CD_CRC_COMMENT_LEN
						&& !text.startsWith(ZipFormat.CONTINUES, ZipFormat.CD_CRC_COMMENT_LEN)) {
					throw new NumberFormatException(text);
				}
				// the files continued, after it, were checked when the archive's bytes were opened (ArchiveBytes)
				return Long.parseLong(text.substring(ZipFormat.CD_CRC_COMMENT.length(), ZipFormat.CD_CRC_COMMENT_LEN),
						16);
			} catch (NumberFormatException e) {
				throw bad("damaged archive comment (the central directory's checksum): " + text, null, eocdPos);
			}
		}

		/**
		 * Checks the CRC-32 of the central directory ({@code crc}, every byte of it read) and of what follows it up to
		 * the end record against the one the comment recorded.
		 */
		private void checkCrc(java.util.zip.CRC32 crc, long expected, long cdEnd, long eocdPos) throws IOException {
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
			locate();
			java.util.zip.CRC32 crc = new java.util.zip.CRC32();
			EntryRecord[] recs = new EntryRecord[entries];
			Set<String> folders = new HashSet<>();
			ArchiveException damage = parseInChunks(recs, null, folders, crc);
			if (expectedCrc >= 0) { // a damaged directory is refused for its checksum first
				checkCrc(crc, expectedCrc, cdOffset + cdSize, eocdPos);
			}
			if (damage != null) {
				throw damage;
			}
			nameOrder = nameOrder(recs);
			for (int k = 1; k < nameOrder.length; k++) {
				EntryRecord r = recs[nameOrder[k]];
				if (r.compareName(recs[nameOrder[k - 1]]) == 0) {
					throw bad("duplicate entry name", r.name(), r.localOffset);
				}
			}
			checkNothingBelowFilesOrLinks(recs, nameOrder, folders);
			return recs;
		}

		void visit(Consumer<EntryRecord> visitor) throws IOException {
			locate();
			if (expectedCrc < 0) {
				throw bad("no checksum of the central directory in the archive's comment: damaged there, or not"
						+ " written by this engine", null, eocdPos);
			}
			java.util.zip.CRC32 crc = new java.util.zip.CRC32();
			ArchiveException damage = parseInChunks(null, visitor, new HashSet<>(), crc);
			checkCrc(crc, expectedCrc, cdOffset + cdSize, eocdPos);
			if (damage != null) {
				throw damage;
			}
		}

		/** Reads the end records: where the directory is, its size and entries, and the checksum recorded. */
		private void locate() throws IOException {
			long fileSize = ch.size();
			if (fileSize < ZipFormat.END_LEN) {
				throw bad("not a ZIP archive (too short: " + fileSize + " bytes)", null, 0);
			}
			int tailLen = (int) Math.min(fileSize, ZipFormat.END_LEN + 0xffff);
			long tailStart = fileSize - tailLen;
			ByteBuffer tail = read(tailStart, tailLen);
			int eocd = findEnd(tail, tailLen);
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
			if (cdSize > MAX_SIZE) {
				throw bad("central directory too large: " + cdSize, null, cdOffset);
			}
			if (entries > cdSize / ZipFormat.CEN_LEN) {
				throw bad("entry count " + entries + " does not fit a central directory of " + cdSize + " bytes",
						null, eocdPos);
			}
			this.entries = (int) entries; // (at most MAX_SIZE / CEN_LEN)
			this.cdSize = cdSize;
			this.eocdPos = eocdPos;
			this.expectedCrc = recordedCrc(tail, eocd, eocdPos);
		}

		/**
		 * Reads the central directory {@link #CHUNK} bytes at a time (or the parser's chunk size), each chunk's whole
		 * records parsed (in slices, in parallel) before the next is read: the heap holds a chunk of the directory,
		 * not all of it (~190 bytes an entry, 190 MB at 1,000,000 entries, beside the index it becomes). Every byte
		 * goes into {@code crc}, also after a damaged record, so that a damaged directory is refused for its checksum
		 * when it has one.
		 *
		 * @param recs    gets the records at their index; {@code null}: each chunk's records go to {@code visitor}
		 * @return the first damage found in the records, or null
		 */
		private ArchiveException parseInChunks(EntryRecord[] recs, Consumer<EntryRecord> visitor, Set<String> folders,
				java.util.zip.CRC32 crc) throws IOException {
			ByteBuffer chunk = ZipFormat.le(ByteBuffer.allocate((int) Math.min(cdSize, chunkSize)));
			long read = 0; // bytes of the directory read
			long chunkStart = 0; // where in the directory the chunk's first byte is
			int next = 0; // the next record to parse
			ArchiveException damage = null;
			while (read < cdSize) {
				int from = chunk.position();
				chunk.limit((int) Math.min(chunk.capacity(), from + cdSize - read));
				while (chunk.hasRemaining()) {
					if (ch.read(chunk, cdOffset + read + chunk.position() - from) < 0) {
						throw bad("unexpected end of archive", null, cdOffset + read + chunk.position() - from);
					}
				}
				crc.update(chunk.array(), from, chunk.position() - from);
				read += chunk.position() - from;
				if (damage != null || next == entries) {
					chunk.clear();
					continue; // read for the checksum only: damaged, or what follows the last record
				}
				chunk.flip();
				try {
					int[] starts = recordStarts(chunk, chunkStart, next, entries - next, read == cdSize);
					int count = starts.length - 1;
					if (count == 0 && chunk.limit() == chunk.capacity()) { // (only a chunk smaller than a record)
						throw bad("central directory record " + next + " larger than " + chunk.capacity() + " bytes",
								null, cdOffset + chunkStart);
					}
					if (recs != null) {
						parseRecords(chunk, chunkStart, starts, recs, next, folders);
					} else {
						EntryRecord[] parsed = new EntryRecord[count];
						parseRecords(chunk, chunkStart, starts, parsed, 0, folders);
						for (EntryRecord r : parsed) {
							visitor.accept(r);
						}
					}
					next += count;
					chunk.position(starts[count]);
				} catch (ArchiveException e) {
					damage = e;
					chunk.clear();
					continue;
				}
				chunkStart += chunk.position();
				chunk.compact(); // the part of a record the chunk ends with goes first in the next
			}
			if (damage == null && next < entries) {
				damage = bad("bad central directory record " + next, null, cdOffset + chunkStart);
			}
			return damage;
		}

		/**
		 * @param chunk      the directory's bytes from {@code chunkStart}, up to its limit
		 * @param first      the index of the record the chunk starts with
		 * @param left       how many records the directory has from that one on
		 * @param lastChunk  whether the chunk ends where the directory does
		 * @return where each whole record in the chunk starts, and after them where the last one ends: one pass that
		 *         reads each record's signature and lengths, so that the records can be parsed in slices
		 */
		private int[] recordStarts(ByteBuffer chunk, long chunkStart, int first, int left, boolean lastChunk)
				throws ArchiveException {
			int[] starts = new int[Math.min(left, chunk.limit() / ZipFormat.CEN_LEN) + 1];
			int size = chunk.limit();
			int p = 0;
			int count = 0;
			for (; count < starts.length - 1; count++) {
				long at = cdOffset + chunkStart + p;
				if (p > size - ZipFormat.CEN_LEN) {
					if (!lastChunk) {
						break; // the rest of the record comes with the next chunk
					}
					throw bad("bad central directory record " + (first + count), null, at);
				}
				if (chunk.getInt(p) != ZipFormat.CEN_SIG) {
					throw bad("bad central directory record " + (first + count), null, at);
				}
				long end = (long) p + ZipFormat.CEN_LEN + Short.toUnsignedInt(chunk.getShort(p + 28))
						+ Short.toUnsignedInt(chunk.getShort(p + 30)) + Short.toUnsignedInt(chunk.getShort(p + 32));
				if (end > size) {
					if (!lastChunk) {
						break;
					}
					throw bad("central directory record " + (first + count) + " overruns the central directory", null,
							at);
				}
				starts[count] = p;
				p = (int) end;
			}
			int[] whole = Arrays.copyOf(starts, count + 1);
			whole[count] = p;
			return whole;
		}

		/**
		 * Parses the records in slices, on the common pool and the calling thread (an exact restore of a large state
		 * spends a good part of its time here). A damaged archive is refused for the first damaged record in the
		 * directory's order, whichever slice found it first.
		 *
		 * @param cd     the chunk of the directory that starts at {@code cdStart}
		 * @param starts where its records start ({@link #recordStarts})
		 * @param first  the index of its first record in {@code recs}
		 * @param all    gets the folders above the entries (each entry's parent and theirs), for
		 *               {@link #checkNothingBelowFilesOrLinks}
		 */
		private void parseRecords(ByteBuffer cd, long cdStart, int[] starts, EntryRecord[] recs, int first,
				Set<String> all) throws ArchiveException {
			int count = starts.length - 1;
			int slices = Math.max(1, Math.min(count / PARSE_SLICE, 4 * Runtime.getRuntime().availableProcessors()));
			ArchiveException[] failures = new ArchiveException[slices];
			List<Set<String>> folders = new java.util.ArrayList<>(java.util.Collections.nCopies(slices, null));
			IntStream.range(0, slices).parallel().forEach(s -> {
				ByteBuffer view = ZipFormat.le(cd.duplicate());
				CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
						.onUnmappableCharacter(CodingErrorAction.REPORT);
				int from = (int) ((long) count * s / slices);
				int to = (int) ((long) count * (s + 1) / slices);
				long left = 0;
				for (int i = from; i < to; i++) {
					left += Short.toUnsignedInt(view.getShort(starts[i] + 28));
				}
				NamePages names = new NamePages(left);
				FoldersAbove above = new FoldersAbove();
				try {
					for (int i = from; i < to; i++) {
						recs[first + i] = record(view, cdStart, starts[i], utf8, names, above);
					}
					folders.set(s, above.folders);
				} catch (ArchiveException e) {
					failures[s] = e;
				}
			});
			for (ArchiveException failure : failures) {
				if (failure != null) {
					throw failure;
				}
			}
			for (Set<String> f : folders) {
				all.addAll(f);
			}
		}

		/**
		 * The folders above the names it is given: a few per thousand entries, each found once, by looking at an
		 * entry's folder only when it is not the one of the entry before (an archive holds its entries folder by
		 * folder).
		 */
		private static final class FoldersAbove {
			final Set<String> folders = new HashSet<>();
			private String last = "";

			void add(String nm) {
				int end = nm.endsWith("/") ? nm.length() - 1 : nm.length();
				int slash = nm.lastIndexOf('/', end - 1);
				if (slash <= 0 || slash == last.length() && nm.startsWith(last)) {
					return;
				}
				last = nm.substring(0, slash);
				for (String folder = last; folders.add(folder);) {
					slash = nm.lastIndexOf('/', slash - 1);
					if (slash <= 0) {
						break;
					}
					folder = nm.substring(0, slash);
				}
			}
		}

		/**
		 * Parses the record at {@code p}, whose lengths {@link #recordStarts} checked, its name put into {@code names}
		 * and given to {@code above}.
		 */
		private EntryRecord record(ByteBuffer cd, long cdStart, int p, CharsetDecoder utf8, NamePages names,
				FoldersAbove above) throws ArchiveException {
			long at = cdOffset + cdStart + p;
			int madeBy = Short.toUnsignedInt(cd.getShort(p + 4));
			int method = Short.toUnsignedInt(cd.getShort(p + 10));
			long dos = Integer.toUnsignedLong(cd.getInt(p + 12));
			int crc = cd.getInt(p + 16);
			long csize = Integer.toUnsignedLong(cd.getInt(p + 20));
			long size = Integer.toUnsignedLong(cd.getInt(p + 24));
			int n = Short.toUnsignedInt(cd.getShort(p + 28));
			int e = Short.toUnsignedInt(cd.getShort(p + 30));
			int attrs = cd.getInt(p + 38);
			long offset = Integer.toUnsignedLong(cd.getInt(p + 42));
			if ((cd.getShort(p + 8) & 1) != 0) {
				throw bad("encrypted entries are not supported", null, at);
			}
			byte[] raw = cd.array(); // (a heap buffer's, from its start)
			int at0 = p + ZipFormat.CEN_LEN;
			String name; // for the checks only: the record keeps the bytes
			if (ascii(raw, at0, n)) { // most names: copied as they are, no decoder
				name = new String(raw, at0, n, StandardCharsets.ISO_8859_1);
			} else {
				try {
					CharBuffer cb = utf8.decode(ByteBuffer.wrap(raw, at0, n));
					name = cb.toString();
				} catch (CharacterCodingException ex) {
					throw bad("entry name is not valid UTF-8", null, at);
				}
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
			long mtime = Long.MIN_VALUE; // NTFS time (100 ns since 1601), when the entry has one
			FileTime utTime = null;
			int chunkSize = 0;
			boolean listed = false;
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
								mtime = cd.getLong(q + 4);
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
					case ZipFormat.EXTRA_LISTED -> listed = true;
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
			above.add(name);
			names.place(raw, at0, n);
			EntryRecord r = names.record(n, type, mode, mtime != Long.MIN_VALUE ? mtime
					: ZipFormat.toNtfs(utTime != null ? utTime : ZipFormat.fromDos(dos)));
			r.method = method;
			r.crc = crc;
			r.size = size;
			r.csize = csize;
			r.localOffset = offset;
			r.flags = Short.toUnsignedInt(cd.getShort(p + 8));
			r.dosTime = (int) dos;
			r.listed = listed && type == EntryType.DIRECTORY;
			if (chunkCsize != null) {
				validateFrames(r, name, at, chunkSize, chunkCsize, chunkCrc);
				r.chunkSize = chunkSize;
				r.chunkCsize = chunkCsize;
				r.chunkCrc = chunkCrc;
			} else {
				r.chunks = (byte) (method == ArchiveEntry.METHOD_STORED || csize == 0 ? 1 : 0);
			}
			return r;
		}

		/**
		 * A file or link may not be the parent of another entry (no writing through links, no conflicts): the
		 * folders above every entry, once each, against the names of files and links.
		 */
		private void checkNothingBelowFilesOrLinks(EntryRecord[] recs, int[] order, Set<String> folders)
				throws ArchiveException {
			for (String folder : folders) {
				byte[] utf8 = folder.getBytes(StandardCharsets.UTF_8);
				int at = firstAtLeast(recs, order, utf8);
				EntryRecord r = at < order.length ? recs[order[at]] : null;
				if (r != null && r.nameIs(utf8) && r.type != EntryType.DIRECTORY) {
					EntryRecord below = recs[order[firstAtLeast(recs, order,
							(folder + "/").getBytes(StandardCharsets.UTF_8))]];
					throw bad("entry below a " + r.type.name().toLowerCase() + " entry '" + folder + "'", below.name(),
							below.localOffset);
				}
			}
		}


		private static boolean ascii(byte[] bytes, int from, int length) {
			for (int i = from; i < from + length; i++) {
				if (bytes[i] < 0) {
					return false;
				}
			}
			return true;
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
