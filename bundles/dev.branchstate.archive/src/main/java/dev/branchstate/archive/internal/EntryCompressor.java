package dev.branchstate.archive.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;

import dev.branchstate.archive.ArchiveEntry;
import dev.branchstate.archive.ArchiveException;
import dev.branchstate.archive.EntryType;

/**
 * What a writer's workers make of the bytes of entries: they read them from their sources into a slot, checksum them
 * and compress them (each with the worker's own zstd context) or store them, or take the previous archive's
 * compressed bytes of the same content; the result is the {@link WriteUnit} to write, local headers included.
 */
final class EntryCompressor {

	private static final int STORE_MIN_SAVING_SHIFT = 5; // store unless zstd saves at least 1/32

	private final Path target;
	private final WorkerPool<Compressors> workers;
	private final PreviousArchive previous;
	private final AtomicLong copied;
	/** Sources of chunked files still being read; closed by their last chunk, or by {@link #closeSources}. */
	private final Set<FileChannel> openSources = ConcurrentHashMap.newKeySet();

	/**
	 * @param target   the archive written, for messages
	 * @param previous the previous archive whose compressed bytes may be taken, or {@code null}
	 * @param copied   counts the entries that took them
	 */
	EntryCompressor(Path target, WorkerPool<Compressors> workers, PreviousArchive previous, AtomicLong copied) {
		this.target = target;
		this.workers = workers;
		this.previous = previous;
		this.copied = copied;
	}

	/** @return the calling worker's zstd context for the {@code len} bytes of {@code src} from {@code off} */
	private ZstdCompressCtx context(ByteBuffer src, int off, int len) {
		return workers.context().forData(src, off, len);
	}

	/**
	 * A small entry: one unit of its local header and data.
	 *
	 * @param source the file to read into the slot, or {@code null} when its raw buffer already holds the data
	 */
	WriteUnit.Entry small(long seq, EntryRecord r, Slot slot, Path source) throws IOException {
		ByteBuffer raw = slot.raw;
		if (source != null) {
			read(source, raw.clear(), r);
			raw.flip();
		}
		int len = raw.remaining();
		checksum(r, raw, 0, len);
		ByteBuffer packed = slot.packed.clear();
		int hdr = ZipFormat.localHeaderLength(r, false);
		pack(r, raw, 0, len, packed, hdr, packed.capacity() - hdr, source);
		ZipFormat.putLocalHeader(packed, 0, r, false);
		return new WriteUnit.Entry(seq, r, packed.limit(hdr + (int) r.csize), slot);
	}

	/**
	 * Several small files read, checksummed and compressed into one slot, to be written with one write. A file whose
	 * CRC-32 and size are those of its previous entry (written again with the same bytes, by a build that rewrites
	 * every class file, say) takes that entry's compressed bytes instead of being compressed again.
	 *
	 * @param previousOnes per file, the previous archive's entry that may hold its bytes, or {@code null}
	 */
	WriteUnit.Batch batch(long seq, EntryRecord[] recs, Path[] sources, EntryRecord[] previousOnes, Slot slot)
			throws IOException {
		ByteBuffer raw = slot.raw.clear();
		ByteBuffer packed = slot.packed.clear();
		int[] offsets = new int[recs.length];
		int rawOff = 0;
		int out = 0;
		for (int i = 0; i < recs.length; i++) {
			EntryRecord r = recs[i];
			read(sources[i], raw.limit(raw.capacity()).position(rawOff), r);
			int len = raw.position() - rawOff;
			checksum(r, raw, rawOff, len);
			int hdr = ZipFormat.localHeaderLength(r, false);
			int room = packed.capacity() - out - hdr;
			EntryRecord p = previousOnes[i];
			if (p != null && p.size == len && p.crc == r.crc && p.csize <= room) {
				previous.readData(p, packed, out + hdr);
				r.method = p.method;
				r.csize = p.csize;
				copied.incrementAndGet();
			} else {
				pack(r, raw, rawOff, len, packed, out + hdr, room, sources[i]);
			}
			ZipFormat.putLocalHeader(packed, out, r, false);
			offsets[i] = out;
			out += hdr + (int) r.csize;
			rawOff += len;
		}
		return new WriteUnit.Batch(seq, recs, offsets, packed.limit(out).position(0), slot);
	}

	/**
	 * Reads the file {@code source} into {@code raw}, from its position up to its limit.
	 *
	 * @throws ArchiveException the file holds more than that: it grew since its size was read
	 */
	private void read(Path source, ByteBuffer raw, EntryRecord r) throws IOException {
		try (FileChannel ch = FileChannel.open(source, StandardOpenOption.READ)) {
			while (raw.hasRemaining()) {
				if (ch.read(raw) < 0) {
					return;
				}
			}
			if (ch.position() < ch.size()) {
				throw grew(source, r);
			}
		}
	}

	private ArchiveException grew(Path source, EntryRecord r) {
		return new ArchiveException("file grew while being archived: " + source, target, r.name(), -1);
	}

	/** Sets the size and CRC-32 of {@code r} to those of the {@code len} bytes of {@code raw} from {@code off}. */
	private static void checksum(EntryRecord r, ByteBuffer raw, int off, int len) {
		CRC32 crc = new CRC32();
		crc.update(raw.duplicate().limit(off + len).position(off));
		r.size = len;
		r.crc = (int) crc.getValue();
	}

	/**
	 * Puts the {@code len} bytes of {@code raw} from {@code rawOff} into {@code packed} at {@code at}, zstd-compressed
	 * (a file's of 64 bytes or more, if that saves at least 1/32) or stored, in at most {@code room} bytes; sets the
	 * method and compressed size of {@code r}.
	 *
	 * @param source the file they were read from, for messages, or {@code null}
	 */
	private void pack(EntryRecord r, ByteBuffer raw, int rawOff, int len, ByteBuffer packed, int at, int room,
			Path source) throws ArchiveException {
		int csize = -1;
		if (len >= 64 && r.type == EntryType.FILE && Zstd.compressBound(len) <= room) {
			csize = context(raw, rawOff, len).compressDirectByteBuffer(packed, at, room, raw, rawOff, len);
			if (csize >= len - (len >> STORE_MIN_SAVING_SHIFT)) {
				csize = -1;
			}
		}
		if (csize < 0) {
			if (len > room) {
				throw grew(source, r);
			}
			r.method = ArchiveEntry.METHOD_STORED;
			r.csize = len;
			packed.put(at, raw, rawOff, len);
		} else {
			r.method = ArchiveEntry.METHOD_ZSTD;
			r.csize = csize;
		}
	}

	/** Opens the source of a chunked file: closed by its last chunk's read, or by {@link #closeSources}. */
	FileChannel openChunked(Path source) throws IOException {
		FileChannel src = FileChannel.open(source, StandardOpenOption.READ);
		openSources.add(src);
		return src;
	}

	/**
	 * One frame of a chunked entry: chunk {@code index}, read from its source at {@code sourceOffset} (or already in
	 * the slot's raw buffer when that is -1), compressed, or the previous entry's frame if it holds the same bytes.
	 */
	WriteUnit.Chunk chunk(long seq, ChunkedEntry entry, int index, Slot slot, long sourceOffset, int len)
			throws IOException {
		ByteBuffer raw = slot.raw;
		if (sourceOffset >= 0) {
			raw.clear().limit(len);
			try {
				long pos = sourceOffset;
				while (raw.hasRemaining()) {
					int n = entry.source.read(raw, pos);
					if (n < 0) {
						throw new ArchiveException("file shrank while being archived", target, entry.record.name(),
								-1);
					}
					pos += n;
				}
			} finally {
				if (entry.readsLeft.decrementAndGet() == 0) {
					closeQuietly(entry.source);
					openSources.remove(entry.source);
				}
			}
			raw.flip();
		}
		CRC32 crc = new CRC32();
		crc.update(raw.duplicate());
		ByteBuffer packed = slot.packed.clear();
		int csize;
		long frame = entry.previousFrame(index, len, (int) crc.getValue());
		if (frame >= 0 && entry.previousFrameSize(index) <= packed.capacity()) {
			csize = entry.previousFrameSize(index);
			previous.read(packed.limit(csize), frame, entry.previous());
			packed.position(0);
			entry.framesTaken.incrementAndGet();
		} else {
			csize = context(raw, 0, len).compressDirectByteBuffer(packed, 0, packed.capacity(), raw, 0, len);
		}
		entry.chunkCrc[index] = (int) crc.getValue();
		entry.chunkCsize[index] = csize;
		entry.chunkLen[index] = len;
		return new WriteUnit.Chunk(seq, entry, index, packed.limit(csize), slot);
	}

	/** Closes the sources still open (after an abort: their chunks will not be read). */
	void closeSources() {
		for (FileChannel c : openSources) {
			closeQuietly(c);
		}
		openSources.clear();
	}

	static void closeQuietly(FileChannel c) {
		try {
			c.close();
		} catch (IOException e) {
			// read-only source: nothing lost
		}
	}
}
