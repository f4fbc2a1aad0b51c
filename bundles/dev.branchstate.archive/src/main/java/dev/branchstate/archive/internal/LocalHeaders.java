package dev.branchstate.archive.internal;

import java.nio.ByteBuffer;

/**
 * Compares a local file header with the central directory record of its entry. APPNOTE 4.3.7 has the local header
 * repeat the record's flags, method, time, CRC-32, sizes and name; only a data descriptor (flag bit 3) may leave the
 * CRC-32 and sizes zero, and a Zip64 local header moves the sizes into its Zip64 extra field. Reading the entry's
 * data never looks at these bytes, so without this check a damaged header would pass {@code verify} unnoticed.
 */
final class LocalHeaders {

	private static final int FLAG_DATA_DESCRIPTOR = 0x0008;

	private LocalHeaders() {
	}

	/**
	 * @param b  holds the whole local header at {@code at}: its fixed part, {@code n} name bytes, {@code e} extra
	 * @return what differs from the record ("name", "flags", …), {@code null} when the header says what it says
	 */
	static String difference(EntryRecord r, ByteBuffer b, int at, int n, int e) {
		for (int i = 0; i < n; i++) {
			if (b.get(at + ZipFormat.LOC_LEN + i) != r.nameByte(i)) {
				return "name"; //$NON-NLS-1$
			}
		}
		int flags = Short.toUnsignedInt(b.getShort(at + 6));
		if (flags != r.flags) {
			return "flags"; //$NON-NLS-1$
		}
		if (Short.toUnsignedInt(b.getShort(at + 8)) != r.method) {
			return "compression method"; //$NON-NLS-1$
		}
		if (b.getInt(at + 10) != r.dosTime) {
			return "modification time"; //$NON-NLS-1$
		}
		int crc = b.getInt(at + 14);
		long csize = Integer.toUnsignedLong(b.getInt(at + 18));
		long size = Integer.toUnsignedLong(b.getInt(at + 22));
		boolean descriptor = (flags & FLAG_DATA_DESCRIPTOR) != 0;
		if (crc != r.crc && !(descriptor && crc == 0)) {
			return "CRC-32"; //$NON-NLS-1$
		}
		if (descriptor && csize == 0 && size == 0) {
			return null;
		}
		if (size == ZipFormat.MAX32 || csize == ZipFormat.MAX32) {
			return zip64Difference(r, b, at + ZipFormat.LOC_LEN + n, e, size == ZipFormat.MAX32,
					csize == ZipFormat.MAX32);
		}
		return size == r.size && csize == r.csize ? null : "sizes"; //$NON-NLS-1$
	}

	/** The Zip64 extra of a local header holds the sizes the fixed part marks 0xffffffff, uncompressed first. */
	private static String zip64Difference(EntryRecord r, ByteBuffer b, int extra, int e, boolean hasSize,
			boolean hasCsize) {
		int x = extra;
		int end = extra + e;
		while (x + 4 <= end) {
			int id = Short.toUnsignedInt(b.getShort(x));
			int len = Short.toUnsignedInt(b.getShort(x + 2));
			if (id == ZipFormat.EXTRA_ZIP64) {
				int need = (hasSize ? 8 : 0) + (hasCsize ? 8 : 0);
				if (len < need || x + 4 + need > end) {
					return "Zip64 extra field"; //$NON-NLS-1$
				}
				int q = x + 4;
				if (hasSize && b.getLong(q) != r.size) {
					return "sizes"; //$NON-NLS-1$
				}
				q += hasSize ? 8 : 0;
				if (hasCsize && b.getLong(q) != r.csize) {
					return "sizes"; //$NON-NLS-1$
				}
				return null;
			}
			x += 4 + len;
		}
		return "Zip64 extra field"; //$NON-NLS-1$
	}
}
