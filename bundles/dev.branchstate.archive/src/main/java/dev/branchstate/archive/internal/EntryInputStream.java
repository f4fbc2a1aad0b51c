package dev.branchstate.archive.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;

import dev.branchstate.archive.ArchiveEntry;
import dev.branchstate.archive.ArchiveException;

/**
 * The uncompressed content of one entry, read with positional reads. Fails with {@link ArchiveException} when the
 * data is corrupt, longer or shorter than declared, or its CRC-32 differs.
 */
final class EntryInputStream extends InputStream {

	private final IndexedArchiveReader reader;
	private final EntryRecord record;
	private final InputStream source;
	private final ZstdInputStreamNoFinalizer zstd;
	private final CRC32 crc = new CRC32();
	private long produced;
	private boolean done;
	private boolean closed;

	EntryInputStream(IndexedArchiveReader reader, EntryRecord record, long dataOffset) throws IOException {
		this.reader = reader;
		this.record = record;
		this.source = new RawStream(dataOffset, record.csize);
		if (record.method == ArchiveEntry.METHOD_STORED) {
			this.zstd = null;
		} else if (record.method == ArchiveEntry.METHOD_ZSTD) {
			try {
				this.zstd = new ZstdInputStreamNoFinalizer(source);
				this.zstd.setContinuous(false);
				// refuse frames that need a window above 32 MiB (zstd's default limit is 128 MiB per stream)
				this.zstd.setLongMax(25);
			} catch (IOException | RuntimeException e) {
				throw new ArchiveException("cannot start zstd decoder: " + e, reader.path(), record.name(), dataOffset, e);
			}
		} else {
			throw new ArchiveException("unsupported compression method " + record.method, reader.path(), record.name(),
					record.localOffset);
		}
	}

	@Override
	public int read() throws IOException {
		byte[] one = new byte[1];
		int n = read(one, 0, 1);
		return n < 0 ? -1 : one[0] & 0xff;
	}

	@Override
	public int read(byte[] b, int off, int len) throws IOException {
		if (closed) {
			throw new IOException("stream closed");
		}
		if (len == 0) {
			return 0;
		}
		if (done) {
			return -1;
		}
		int n;
		try {
			n = zstd != null ? zstd.read(b, off, len) : source.read(b, off, len);
		} catch (ArchiveException | dev.branchstate.archive.ArchiveCanceledException e) {
			throw e;
		} catch (IOException | RuntimeException e) {
			throw new ArchiveException("corrupt entry data: " + e.getMessage(), reader.path(), record.name(),
					record.localOffset, e);
		}
		if (n < 0) {
			done = true;
			if (produced != record.size) {
				throw new ArchiveException("entry has " + produced + " bytes, declared " + record.size, reader.path(),
						record.name(), record.localOffset);
			}
			if ((int) crc.getValue() != record.crc) {
				throw new ArchiveException("CRC-32 mismatch", reader.path(), record.name(), record.localOffset);
			}
			return -1;
		}
		produced += n;
		if (produced > record.size) {
			throw new ArchiveException("entry has more data than its declared size " + record.size, reader.path(),
					record.name(), record.localOffset);
		}
		crc.update(b, off, n);
		return n;
	}

	@Override
	public void close() throws IOException {
		if (closed) {
			return;
		}
		closed = true;
		if (zstd != null) {
			zstd.close();
		}
	}

	/** The entry's compressed bytes, bounded, positional. */
	private final class RawStream extends InputStream {
		private long position;
		private final long end;

		RawStream(long start, long length) {
			this.position = start;
			this.end = start + length;
		}

		@Override
		public int read() throws IOException {
			byte[] one = new byte[1];
			int n = read(one, 0, 1);
			return n < 0 ? -1 : one[0] & 0xff;
		}

		@Override
		public int read(byte[] b, int off, int len) throws IOException {
			if (position >= end) {
				return -1;
			}
			int want = (int) Math.min(len, end - position);
			ByteBuffer buf = ByteBuffer.wrap(b, off, want);
			int n = reader.read(buf, position);
			if (n < 0) {
				throw new ArchiveException("unexpected end of archive", reader.path(), record.name(), position);
			}
			position += n;
			return n;
		}
	}
}
