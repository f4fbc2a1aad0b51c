package dev.branchstate.archive.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.attribute.FileTime;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.concurrent.TimeUnit;


/** ZIP record layouts (APPNOTE 6.3.10) and their encoding. All integers little-endian. */
final class ZipFormat {

	static final int LOC_SIG = 0x04034b50;
	static final int CEN_SIG = 0x02014b50;
	static final int END_SIG = 0x06054b50;
	static final int ZIP64_END_SIG = 0x06064b50;
	static final int ZIP64_LOC_SIG = 0x07064b50;
	static final int LOC_LEN = 30;
	static final int CEN_LEN = 46;
	static final int END_LEN = 22;
	static final int ZIP64_END_LEN = 56;
	static final int ZIP64_LOC_LEN = 20;
	static final int FLAG_UTF8 = 0x0800;
	static final int EXTRA_ZIP64 = 0x0001;
	static final int EXTRA_NTFS = 0x000a;
	static final int EXTRA_UT = 0x5455;
	/** Ours: the frame table of a chunked entry (see README). */
	static final int EXTRA_FRAMES = 0x7342;
	static final int FRAMES_VERSION = 1;
	/**
	 * Ours: a folder entry whose folder held no name but those of the archive, and whose time was at least
	 * {@link #LISTING_MARGIN_MILLIS} old when the writer read it (no data; see README).
	 */
	static final int EXTRA_LISTED = 0x7343;
	/**
	 * How old a folder's time must be for it to vouch for the folder's names: more than the granularity of any file
	 * system's times (2 s on FAT; a clock tick on others), so that no later change can leave it the same.
	 */
	static final long LISTING_MARGIN_MILLIS = 3000;
	/** Max frames in one frame-table extra (keeps the extra field below 64 KiB). */
	static final int MAX_FRAMES = 8000;
	static final long MAX32 = 0xffffffffL;
	static final int MAX16 = 0xffff;
	static final int S_IFREG = 0100000;
	static final int S_IFDIR = 0040000;
	static final int S_IFLNK = 0120000;
	static final int S_IFMT = 0170000;
	/** 100 ns intervals between 1601-01-01 and 1970-01-01. */
	private static final long NTFS_EPOCH_OFFSET = 116444736000000000L;
	static final int LOCAL_ZIP64_EXTRA_LEN = 20;
	/**
	 * Ours: the archive comment that carries the CRC-32 of everything from the central directory to the end record
	 * (the central directory's records, the Zip64 end record and locator), as 8 lower-case hex digits after it. The
	 * central directory holds names, modes, times and frame tables that no entry's data checks.
	 */
	static final String CD_CRC_COMMENT = "branchstate cd-crc32="; //$NON-NLS-1$
	static final int CD_CRC_COMMENT_LEN = CD_CRC_COMMENT.length() + 8;
	/**
	 * Ours: what follows the {@link #CD_CRC_COMMENT} in an archive that continues earlier files (see
	 * {@link ArchiveBytes}): {@code <size>:<crc32 of its last 4096 bytes, hex>} of each, comma-separated.
	 */
	static final String CONTINUES = " continues="; //$NON-NLS-1$
	/** The most files an archive may continue (longer chains are compacted by the writer). */
	static final int MAX_CONTINUED = 16;

	private ZipFormat() {
	}

	static int versionNeeded(int method, boolean zip64) {
		if (method == 93) {
			return 63;
		}
		return zip64 ? 45 : 20;
	}

	static long dosDateTime(FileTime time) {
		return dosDateTime(time, ZoneId.systemDefault());
	}

	/** @return the DOS date and time of {@code time} in {@code zone} */
	static long dosDateTime(FileTime time, ZoneId zone) {
		LocalDateTime t = LocalDateTime.ofInstant(time.toInstant(), zone);
		int year = t.getYear();
		if (year < 1980) {
			return (1 << 21) | (1 << 16);
		}
		if (year > 2107) {
			year = 2107;
		}
		return ((long) (year - 1980) << 25) | ((long) t.getMonthValue() << 21) | ((long) t.getDayOfMonth() << 16)
				| ((long) t.getHour() << 11) | ((long) t.getMinute() << 5) | (t.getSecond() >> 1);
	}

	static FileTime fromDos(long dos) {
		try {
			LocalDateTime t = LocalDateTime.of((int) ((dos >> 25) & 0x7f) + 1980, (int) ((dos >> 21) & 0x0f),
					(int) ((dos >> 16) & 0x1f), (int) ((dos >> 11) & 0x1f), (int) ((dos >> 5) & 0x3f),
					(int) ((dos << 1) & 0x3e));
			return FileTime.from(t.atZone(ZoneId.systemDefault()).toInstant());
		} catch (RuntimeException e) {
			return FileTime.fromMillis(0);
		}
	}

	static long toNtfs(FileTime time) {
		long sec = time.to(TimeUnit.SECONDS);
		long nano = time.toInstant().getNano();
		return sec * 10_000_000L + nano / 100 + NTFS_EPOCH_OFFSET;
	}

	static FileTime fromNtfs(long ntfs) {
		long t = ntfs - NTFS_EPOCH_OFFSET;
		long sec = Math.floorDiv(t, 10_000_000L);
		long rem = Math.floorMod(t, 10_000_000L);
		return FileTime.from(java.time.Instant.ofEpochSecond(sec, rem * 100));
	}

	/** Truncates to the 100 ns precision the archive keeps. */
	static FileTime truncate(FileTime time) {
		return fromNtfs(toNtfs(time));
	}

	static boolean sameTime(FileTime a, FileTime b) {
		return toNtfs(a) == toNtfs(b);
	}

	static int unixMode(EntryRecord r) {
		int type = switch (r.type) {
			case DIRECTORY -> S_IFDIR;
			case SYMLINK -> S_IFLNK;
			default -> S_IFREG;
		};
		return type | (r.mode & 07777);
	}

	static ByteBuffer le(ByteBuffer b) {
		return b.order(ByteOrder.LITTLE_ENDIAN);
	}

	/**
	 * Writes a local file header at {@code at}. With {@code zip64} the 32-bit sizes are 0xffffffff and a Zip64
	 * extra carries both sizes ({@link #LOCAL_ZIP64_EXTRA_LEN} bytes). Returns the header length.
	 */
	static int putLocalHeader(ByteBuffer b, int at, EntryRecord r, boolean zip64) {
		long dos = dosDateTime(r.mtime());
		b.putInt(at, LOC_SIG);
		b.putShort(at + 4, (short) versionNeeded(r.method, zip64));
		b.putShort(at + 6, (short) FLAG_UTF8);
		b.putShort(at + 8, (short) r.method);
		b.putInt(at + 10, (int) dos);
		b.putInt(at + 14, r.crc);
		b.putInt(at + 18, zip64 ? -1 : (int) r.csize);
		b.putInt(at + 22, zip64 ? -1 : (int) r.size);
		b.putShort(at + 26, (short) r.nameLength);
		b.putShort(at + 28, (short) (zip64 ? LOCAL_ZIP64_EXTRA_LEN : 0));
		r.putName(b, at + LOC_LEN);
		if (zip64) {
			int e = at + LOC_LEN + r.nameLength;
			b.putShort(e, (short) EXTRA_ZIP64);
			b.putShort(e + 2, (short) 16);
			b.putLong(e + 4, r.size);
			b.putLong(e + 12, r.csize);
		}
		return LOC_LEN + r.nameLength + (zip64 ? LOCAL_ZIP64_EXTRA_LEN : 0);
	}

	static int localHeaderLength(EntryRecord r, boolean zip64) {
		return LOC_LEN + r.nameLength + (zip64 ? LOCAL_ZIP64_EXTRA_LEN : 0);
	}

	/** A heap buffer that grows; {@link #reserve(int)} returns it positioned where to write. */
	static final class Growable {
		private ByteBuffer buf = le(ByteBuffer.allocate(1 << 16));

		ByteBuffer reserve(int n) {
			if (buf.remaining() < n) {
				int cap = Math.max(buf.capacity() * 2, buf.position() + n);
				ByteBuffer nb = le(ByteBuffer.allocate(cap));
				buf.flip();
				nb.put(buf);
				buf = nb;
			}
			return buf;
		}

		ByteBuffer flip() {
			return buf.duplicate().flip();
		}

		int size() {
			return buf.position();
		}

		void clear() {
			buf.clear();
		}


	}
}
