package dev.branchstate.archive.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

import dev.branchstate.archive.ArchiveCanceledException;
import dev.branchstate.archive.ArchiveException;
import dev.branchstate.archive.ArchiveProgress;

/**
 * The file an archive write fills, beside its target until {@link #moveToTarget commit}: a locked temporary file.
 * Units are {@linkplain #deposit deposited} in any order by the threads that made them; each gets the next region of
 * the file in submission order (so the frames of a chunked entry are contiguous), and is written there with positional
 * writes by the thread whose deposit placed it, outside any lock.
 *
 * <p>
 * Positions are in the archive's bytes: those of the previous archive's files it continues come first
 * ({@link PreviousArchive#base()}), so its own file starts at the base.
 */
final class ArchiveOutput {

	private final Path target;
	private final Path temp;
	private final FileChannel out;
	private final PreviousArchive previous;
	private final Buffers<Slot> slots;
	private final ArchiveProgress progress;
	private final AtomicLong copied;
	private final Semaphore unitsDone = new Semaphore(0);
	private final Object sequencer = new Object();
	private final Map<Long, WriteUnit> ready = new HashMap<>();
	private long nextToPlace;
	private long end;
	private volatile boolean aborted;

	/**
	 * Creates the temporary file beside {@code target}.
	 *
	 * @param previous the previous archive copies read from, or {@code null}
	 * @param slots    where written units give back their buffers
	 * @param copied   counts the entries written from the previous archive's bytes
	 */
	ArchiveOutput(Path target, PreviousArchive previous, Buffers<Slot> slots, ArchiveProgress progress,
			AtomicLong copied) throws IOException {
		this.target = target;
		this.temp = WriterTemporaryFile.beside(target);
		this.out = WriterTemporaryFile.createLocked(temp);
		this.previous = previous;
		this.slots = slots;
		this.progress = progress;
		this.copied = copied;
		this.end = base();
	}

	/** @return where the bytes placed so far end: where the next unit, or the central directory, goes */
	long end() {
		synchronized (sequencer) {
			return end;
		}
	}

	/** @return where this archive's own file starts in its bytes */
	long base() {
		return previous != null ? previous.base() : 0;
	}

	/**
	 * Hands a finished unit over; writes the units whose region this call assigned (this one and the units after it
	 * that were waiting for it).
	 */
	void deposit(WriteUnit u) throws IOException {
		List<WriteUnit> mine = null;
		long position = 0;
		synchronized (sequencer) {
			ready.put(u.seq(), u);
			WriteUnit next;
			while ((next = ready.remove(nextToPlace)) != null) {
				if (mine == null) {
					mine = new ArrayList<>(2);
					position = end;
				}
				if (next instanceof WriteUnit.ChunkedHeader h) {
					h.entry().headerPosition = end;
				}
				end += next.length();
				nextToPlace++;
				mine.add(next);
			}
		}
		if (mine != null) {
			for (WriteUnit m : mine) {
				long length = m.length();
				write(m, position);
				position += length;
			}
		}
	}

	/** Waits until the first {@code count} units are written, or the run fails. */
	void awaitWritten(WorkerPool<?> workers, long count) throws IOException {
		workers.await(unitsDone, count);
	}

	/** Writes a unit at the position the sequencer gave it, then gives back its buffers. */
	private void write(WriteUnit u, long position) throws IOException {
		switch (u) {
			case WriteUnit.Entry e -> {
				e.record().localOffset = position;
				write(e.bytes(), position, e.record());
				progress.entryDone(e.record().size);
			}
			case WriteUnit.Batch b -> {
				write(b.bytes(), position, b.records()[0]);
				placed(b.records(), b.offsets(), position);
			}
			case WriteUnit.CopyRun c -> {
				copyRegion(c.slot().raw, c.from(), position, c.length(), c.records()[0]);
				placed(c.records(), c.offsets(), position);
				copied.addAndGet(c.records().length);
			}
			case WriteUnit.ChunkedHeader h -> {
				// region reserved; the header is written by finishChunked once sizes and CRC are known
			}
			case WriteUnit.Chunk c -> {
				write(c.bytes(), position, c.entry().record);
				progress.bytesDone(c.entry().chunkLen[c.index()]);
			}
			case WriteUnit.Copy c -> {
				writeCopy(c.slot().raw, c.header(), c.from(), position, c.record());
				copied.incrementAndGet();
				progress.entryDone(c.record().size);
			}
		}
		slots.giveBack(u.slot());
		if (u instanceof WriteUnit.Chunk c) {
			releaseHold(c.entry());
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
	 * @param buf the buffer the data passes through
	 * @return the bytes written
	 */
	long writeCopy(ByteBuffer buf, ByteBuffer header, long from, long position, EntryRecord r) throws IOException {
		int h = header.remaining();
		write(header, position, r);
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
			previous.read(buf, from, r);
			buf.flip();
			int n = buf.remaining();
			write(buf, to, r);
			from += n;
			to += n;
			left -= n;
		}
	}

	/**
	 * Gives back one hold of a chunked entry (its submitter's, or a written chunk's); the last one writes its local
	 * header, in the region reserved for it.
	 */
	void releaseHold(ChunkedEntry chunked) throws IOException {
		if (chunked.remaining.decrementAndGet() != 0) {
			return;
		}
		EntryRecord r = chunked.record;
		int n = chunked.count;
		r.chunkCsize = Arrays.copyOf(chunked.chunkCsize, n);
		r.chunkCrc = Arrays.copyOf(chunked.chunkCrc, n);
		long csize = 0;
		int crc = 0;
		for (int i = 0; i < n; i++) {
			csize += r.chunkCsize[i] & ZipFormat.MAX32;
			crc = i == 0 ? r.chunkCrc[0] : Crc32Combine.combine(crc, r.chunkCrc[i], chunked.chunkLen[i]);
		}
		r.csize = csize;
		r.crc = crc;
		r.localOffset = chunked.headerPosition;
		if (chunked.framesTaken.get() == n) {
			copied.incrementAndGet(); // (every frame the previous entry's)
		}
		if (n > ZipFormat.MAX_FRAMES) {
			r.chunkCsize = null;
			r.chunkCrc = null;
		}
		ByteBuffer h = ZipFormat.le(ByteBuffer.allocate(ZipFormat.localHeaderLength(r, true)));
		ZipFormat.putLocalHeader(h, 0, r, true);
		write(h, chunked.headerPosition, r);
		progress.entryDone(0);
	}

	/**
	 * Stops continuing the previous archive's files ({@link PreviousArchive#detach}), once the entries this archive
	 * shared were copied beyond its end, up to {@code newEnd}: its own file now starts at 0; the records' offsets must
	 * move down by the old base.
	 */
	void stopContinuing(long newEnd) {
		synchronized (sequencer) {
			end = newEnd - base();
		}
		previous.detach();
	}

	/**
	 * Writes {@code b} (from its position to its limit) at {@code position} of the archive's bytes: at
	 * {@code position - base} of its own file.
	 *
	 * @param r the entry they belong to, for messages, or {@code null}
	 */
	void write(ByteBuffer b, long position, EntryRecord r) throws IOException {
		long pos = position - base();
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

	/** Forces the file's bytes to the disk. */
	void force() throws IOException {
		out.force(true);
	}

	/**
	 * Gives the file its target's name (replacing any file there). Moved while still open: the file stays locked (a
	 * running write) until it has its name; {@link #close} it then.
	 */
	void moveToTarget() throws IOException {
		Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
	}

	/** Closes the file (its lock goes with it) once it has its target's name. */
	void close() throws IOException {
		out.close();
	}

	/** Closes and deletes the temporary file; writes still running fail as canceled. */
	void abort() {
		aborted = true;
		try {
			out.close();
		} catch (IOException e) {
			// nothing to add: the file is deleted below
		}
		try {
			Files.deleteIfExists(temp);
		} catch (IOException e) {
			// best effort; the name is hidden and unique
		}
	}
}
