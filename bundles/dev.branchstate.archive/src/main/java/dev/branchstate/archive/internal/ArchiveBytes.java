package dev.branchstate.archive.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32;

import dev.branchstate.archive.ArchiveException;

/**
 * The bytes of an archive as one read-only channel. An archive written sharing the entries of a previous one
 * ({@link dev.branchstate.archive.WriteOptions#withSharing}) <em>continues</em> the previous archive's files: its
 * own file holds only the entries that changed and the central directory, whose offsets count from the start of
 * the first file it continues. Its end record's comment lists the files continued, by size and the CRC-32 of their
 * last bytes ({@link ZipFormat#CONTINUES}); they are hard links beside it, named {@code <archive>.1},
 * {@code <archive>.2}, … (the <em>linked</em> form, in a store). The same bytes concatenated into one file (the
 * <em>joined</em> form, as uploaded and downloaded) are a complete ZIP file, read without any link.
 * <p>
 * Every file is checked against the size and end CRC-32 the comment gives before any entry is read: a link that
 * points elsewhere, a truncated or replaced file is refused, naming it.
 */
public final class ArchiveBytes extends FileChannel {

	/** Bytes at the end of a continued file that the comment's CRC-32 covers (its end record and comment). */
	static final int TAIL_CHECKED = 4096;

	private final Path path;
	private final List<Path> files;
	private final FileChannel[] channels;
	/** Position of each channel's first byte in the archive's bytes; {@code starts[channels.length]} = size. */
	private final long[] starts;
	/** For the relative reads of {@link FileChannel} (the engine reads by position). */
	private long position;

	private ArchiveBytes(Path path, List<Path> files, FileChannel[] channels, long[] starts) {
		this.path = path;
		this.files = List.copyOf(files);
		this.channels = channels;
		this.starts = starts;
	}

	/** One file continued by an archive: its size and the CRC-32 of its last {@link #TAIL_CHECKED} bytes. */
	record Continued(long size, int tailCrc) {
	}

	/**
	 * Opens the archive at {@code path} with the files it continues.
	 *
	 * @throws ArchiveException naming the file and what is wrong with it when a continued file is missing or is not
	 *                          the one the archive was written after
	 */
	public static ArchiveBytes open(Path path) throws IOException {
		FileChannel own = FileChannel.open(path, StandardOpenOption.READ);
		List<FileChannel> opened = new ArrayList<>();
		opened.add(own);
		try {
			List<Continued> continued = continuedBy(path, own);
			if (continued.isEmpty()) {
				return new ArchiveBytes(path, List.of(path), new FileChannel[] { own }, new long[] { 0, own.size() });
			}
			Path first = linkName(path, 1);
			if (!Files.exists(first)) {
				long sum = continued.stream().mapToLong(Continued::size).sum();
				if (own.size() <= sum) {
					throw new ArchiveException("the archive continues " + first + ", which is missing", path, null, -1);
				}
				// the joined form: one file that holds the continued ones, at their positions
				long at = 0;
				for (int i = 0; i < continued.size(); i++) {
					Continued c = continued.get(i);
					check(path, own, at, c, "the archive (its part " + (i + 1) + ")", false);
					at += c.size();
				}
				return new ArchiveBytes(path, List.of(path), new FileChannel[] { own }, new long[] { 0, own.size() });
			}
			FileChannel[] channels = new FileChannel[continued.size() + 1];
			long[] starts = new long[channels.length + 1];
			List<Path> files = new ArrayList<>();
			for (int i = 0; i < continued.size(); i++) {
				Path link = linkName(path, i + 1);
				FileChannel ch;
				try {
					ch = FileChannel.open(link, StandardOpenOption.READ);
				} catch (NoSuchFileException e) {
					throw new ArchiveException("the archive continues " + link + ", which is missing", path, null, -1);
				}
				opened.add(ch);
				check(link, ch, 0, continued.get(i), "the continued file", true);
				channels[i] = ch;
				files.add(link);
				starts[i + 1] = starts[i] + ch.size();
			}
			channels[continued.size()] = own;
			files.add(path);
			starts[channels.length] = starts[continued.size()] + own.size();
			return new ArchiveBytes(path, files, channels, starts);
		} catch (IOException | RuntimeException | Error e) {
			for (FileChannel ch : opened) {
				ch.close();
			}
			throw e;
		}
	}

	/** @return the name of the {@code n}th file (from 1) that the archive at {@code archive} continues */
	public static Path linkName(Path archive, int n) {
		return archive.resolveSibling(archive.getFileName() + "." + n); //$NON-NLS-1$
	}

	/**
	 * @return the files the archive at {@code path} is made of, those it continues first, itself last; only
	 *         {@code path} when it continues none or holds them (the joined form)
	 */
	public static List<Path> files(Path path) throws IOException {
		try (FileChannel own = FileChannel.open(path, StandardOpenOption.READ)) {
			List<Continued> continued = continuedBy(path, own);
			if (continued.isEmpty() || !Files.exists(linkName(path, 1))) {
				return List.of(path);
			}
			List<Path> files = new ArrayList<>();
			for (int i = 1; i <= continued.size(); i++) {
				files.add(linkName(path, i));
			}
			files.add(path);
			return files;
		}
	}

	/** @return the files the bytes come from, in order: the continued ones, then the archive's own */
	public List<Path> files() {
		return files;
	}

	/** @return the position of each file's first byte in the archive's bytes, and last the archive's size */
	long[] starts() {
		return starts.clone();
	}

	/** @return what an archive written after this one records of each of {@link #files()} */
	List<Continued> asContinued() throws IOException {
		List<Continued> list = new ArrayList<>();
		for (FileChannel ch : channels) {
			list.add(new Continued(ch.size(), tailCrc(ch, 0, ch.size())));
		}
		return list;
	}

	/**
	 * @param exact whether the file must be as long as the continued one was (a link), or only hold it from
	 *              {@code start} on (the joined form)
	 */
	private static void check(Path file, FileChannel ch, long start, Continued expected, String what, boolean exact)
			throws IOException {
		long available = ch.size() - start;
		if (exact ? available != expected.size() : available <= expected.size()) {
			throw new ArchiveException(what + " has " + available + " bytes, the archive was written after one of "
					+ expected.size(), file, null, start);
		}
		int crc = tailCrc(ch, start, expected.size());
		if (crc != expected.tailCrc()) {
			throw new ArchiveException(what + " is not the file the archive was written after (the CRC-32 of its end is "
					+ String.format("%08x, not %08x)", crc, expected.tailCrc()), file, null, start + expected.size()); //$NON-NLS-1$
		}
	}

	private static int tailCrc(FileChannel ch, long start, long size) throws IOException {
		int n = (int) Math.min(size, TAIL_CHECKED);
		ByteBuffer b = ByteBuffer.allocate(n);
		long p = start + size - n;
		while (b.hasRemaining()) {
			int r = ch.read(b, p + b.position());
			if (r < 0) {
				throw new IOException("unexpected end of file"); //$NON-NLS-1$
			}
		}
		CRC32 crc = new CRC32();
		crc.update(b.flip());
		return (int) crc.getValue();
	}

	/** @return the files an archive continues, from its end record's comment; empty for a self-contained archive */
	private static List<Continued> continuedBy(Path path, FileChannel own) throws IOException {
		String comment = comment(own);
		if (comment == null || !comment.startsWith(ZipFormat.CD_CRC_COMMENT)
				|| comment.length() == ZipFormat.CD_CRC_COMMENT_LEN) {
			return List.of();
		}
		String rest = comment.substring(ZipFormat.CD_CRC_COMMENT_LEN);
		if (!rest.startsWith(ZipFormat.CONTINUES)) {
			throw new ArchiveException("damaged archive comment: " + comment, path, null, -1);
		}
		List<Continued> list = new ArrayList<>();
		try {
			for (String item : rest.substring(ZipFormat.CONTINUES.length()).split(",", -1)) { //$NON-NLS-1$
				int colon = item.indexOf(':');
				long size = Long.parseLong(item.substring(0, colon));
				int crc = Integer.parseUnsignedInt(item.substring(colon + 1), 16);
				if (size <= 0) {
					throw new NumberFormatException(item);
				}
				list.add(new Continued(size, crc));
			}
		} catch (RuntimeException e) {
			throw new ArchiveException("damaged archive comment (the files it continues): " + comment, path, null, -1);
		}
		if (list.size() > ZipFormat.MAX_CONTINUED) {
			throw new ArchiveException("the archive continues " + list.size() + " files, more than "
					+ ZipFormat.MAX_CONTINUED, path, null, -1);
		}
		return list;
	}

	/** @return the comment of the file's end record, {@code null} when there is no end record */
	private static String comment(FileChannel ch) throws IOException {
		long size = ch.size();
		if (size < ZipFormat.END_LEN) {
			return null;
		}
		int tailLen = (int) Math.min(size, ZipFormat.END_LEN + 0xffff);
		ByteBuffer tail = ZipFormat.le(ByteBuffer.allocate(tailLen));
		while (tail.hasRemaining()) {
			if (ch.read(tail, size - tailLen + tail.position()) < 0) {
				return null;
			}
		}
		int eocd = CentralDirectory.findEnd(tail, tailLen);
		if (eocd < 0) {
			return null;
		}
		int length = Short.toUnsignedInt(tail.getShort(eocd + 20));
		byte[] comment = new byte[length];
		tail.get(eocd + ZipFormat.END_LEN, comment);
		return new String(comment, StandardCharsets.ISO_8859_1);
	}

	// ---------------------------------------------------------------- FileChannel, read-only

	@Override
	public int read(ByteBuffer dst, long position) throws IOException {
		if (position < 0) {
			throw new IllegalArgumentException("negative position"); //$NON-NLS-1$
		}
		if (position >= starts[channels.length]) {
			return -1;
		}
		int i = Arrays.binarySearch(starts, 0, channels.length, position);
		if (i < 0) {
			i = -i - 2;
		}
		long local = position - starts[i];
		long left = starts[i + 1] - position;
		if (dst.remaining() <= left) {
			return channels[i].read(dst, local);
		}
		int limit = dst.limit();
		dst.limit(dst.position() + (int) left);
		try {
			return channels[i].read(dst, local);
		} finally {
			dst.limit(limit);
		}
	}

	@Override
	public long size() throws IOException {
		return starts[channels.length];
	}

	@Override
	public int read(ByteBuffer dst) throws IOException {
		int n = read(dst, position);
		if (n > 0) {
			position += n;
		}
		return n;
	}

	@Override
	public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
		long total = 0;
		for (int i = offset; i < offset + length; i++) {
			int n = read(dsts[i]);
			if (n < 0) {
				return total == 0 ? -1 : total;
			}
			total += n;
			if (dsts[i].hasRemaining()) {
				break;
			}
		}
		return total;
	}

	@Override
	public long position() {
		return position;
	}

	@Override
	public FileChannel position(long newPosition) {
		position = newPosition;
		return this;
	}

	@Override
	public long transferTo(long from, long count, WritableByteChannel target) throws IOException {
		ByteBuffer b = ByteBuffer.allocate((int) Math.min(count, 1 << 16));
		long done = 0;
		while (done < count) {
			b.clear().limit((int) Math.min(b.capacity(), count - done));
			int n = read(b, from + done);
			if (n <= 0) {
				break;
			}
			b.flip();
			while (b.hasRemaining()) {
				target.write(b);
			}
			done += n;
		}
		return done;
	}

	@Override
	public void force(boolean metaData) {
		// read-only
	}

	@Override
	public int write(ByteBuffer src) {
		throw new NonWritableChannelException();
	}

	@Override
	public long write(ByteBuffer[] srcs, int offset, int length) {
		throw new NonWritableChannelException();
	}

	@Override
	public int write(ByteBuffer src, long position) {
		throw new NonWritableChannelException();
	}

	@Override
	public FileChannel truncate(long size) {
		throw new NonWritableChannelException();
	}

	@Override
	public long transferFrom(ReadableByteChannel src, long from, long count) {
		throw new NonWritableChannelException();
	}

	@Override
	public MappedByteBuffer map(MapMode mode, long from, long size) {
		throw new UnsupportedOperationException("the bytes of an archive are not mapped"); //$NON-NLS-1$
	}

	@Override
	public FileLock lock(long from, long size, boolean shared) {
		throw new UnsupportedOperationException();
	}

	@Override
	public FileLock tryLock(long from, long size, boolean shared) {
		throw new UnsupportedOperationException();
	}

	@Override
	protected void implCloseChannel() throws IOException {
		IOException first = null;
		for (FileChannel ch : channels) {
			try {
				ch.close();
			} catch (IOException e) {
				first = first == null ? e : first;
			}
		}
		if (first != null) {
			throw first;
		}
	}

	@Override
	public String toString() {
		return path.toString();
	}
}
