package dev.branchstate.archive.internal;

import java.nio.ByteBuffer;

import com.github.luben.zstd.Zstd;

/** A pair of reused direct buffers: uncompressed data and compressed data (with room for a local header). */
final class Slot {

	static final int HEADER_ROOM = ZipFormat.LOC_LEN + 0xffff + ZipFormat.LOCAL_ZIP64_EXTRA_LEN + 64;

	final ByteBuffer raw;
	final ByteBuffer packed;

	Slot(int chunkSize) {
		raw = ZipFormat.le(ByteBuffer.allocateDirect(chunkSize));
		packed = ZipFormat.le(ByteBuffer.allocateDirect((int) Math.min(Integer.MAX_VALUE - 16,
				Zstd.compressBound(chunkSize) + HEADER_ROOM)));
	}
}
