package dev.branchstate.archive.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.branchstate.archive.ArchiveCanceledException;
import dev.branchstate.archive.EntryType;
import dev.branchstate.archive.ExtractOptions;
import dev.branchstate.archive.ExtractPlan;

/**
 * Makes an {@link ExtractPlan}: which file and link entries under the options' prefix a differential extraction into
 * the target would write. Looks only at the central directory and the target (a stat per file, in slices on the
 * options' workers); reads no entry data.
 */
final class Planner {

	/** Most entries per task: few enough to share the work of a large folder. */
	private static final int SLICE = 512;
	/**
	 * Fewest entries per task (but for the last): enough to make a task worth its hand-off, so that a folder of a
	 * few hundred files (a project's output) is also shared among the workers.
	 */
	static final int MIN_SLICE = 64;
	private static final int CRC_BUFFER = 1 << 16;

	private Planner() {
	}

	static ExtractPlan plan(IndexedArchiveReader reader, Path target, ExtractOptions options) throws IOException {
		Path root = target.toAbsolutePath().normalize();
		String prefix = options.prefix();
		int prefixBytes = prefix.getBytes(StandardCharsets.UTF_8).length;
		List<EntryRecord> files = new ArrayList<>();
		Set<String> toWrite = ConcurrentHashMap.newKeySet();
		AtomicLong bytes = new AtomicLong();
		EntryRecord[] records = reader.records();
		for (int i : reader.indicesUnder(prefix)) {
			EntryRecord r = records[i];
			if (r.nameLength == prefixBytes) {
				continue;
			}
			if (r.type == EntryType.FILE) {
				files.add(r);
			} else if (r.type == EntryType.SYMLINK) {
				toWrite.add(r.name()); // (a link already there is left as is by the extraction: no data to spare)
				bytes.addAndGet(r.size);
			}
		}
		AtomicLong identical = new AtomicLong();
		if (isEmpty(root)) {
			for (EntryRecord r : files) {
				toWrite.add(r.name());
				bytes.addAndGet(r.size);
			}
			return new ExtractPlan(root, prefix, toWrite, 0, bytes.get(), true);
		}
		AtomicBoolean stop = new AtomicBoolean(); // a slice failed: the others end early
		int slice = sliceSize(files.size(), options.workers());
		int threads = Math.max(1, Math.min(options.workers(), (files.size() + slice - 1) / slice));
		ExecutorService own = options.executor() != null ? null : Executors.newFixedThreadPool(threads,
				Thread.ofPlatform().name("branchstate-archive-planner-", 1).daemon().factory());
		try {
			List<CompletableFuture<Void>> slices = new ArrayList<>();
			for (int from = 0; from < files.size(); from += slice) {
				List<EntryRecord> part = files.subList(from, Math.min(files.size(), from + slice));
				slices.add(CompletableFuture.runAsync(() -> {
					ByteBuffer buf = ByteBuffer.allocate(CRC_BUFFER);
					try (FolderStat folders = new FolderStat(root)) {
						for (EntryRecord r : part) {
							if (stop.get()) {
								return;
							}
							if (options.cancel().getAsBoolean() || Thread.currentThread().isInterrupted()) {
								throw new CompletionException(
										new ArchiveCanceledException("planning canceled: " + reader.path()));
							}
							String rel = r.nameAfter(prefixBytes);
							if (DiskIdentity.identical(root, rel, folders.attributes(rel), r, options, buf)) {
								identical.incrementAndGet();
							} else {
								toWrite.add(r.name());
								bytes.addAndGet(r.size);
							}
						}
					} catch (IOException e) {
						throw new CompletionException(e);
					}
				}, own != null ? own : options.executor()));
			}
			try {
				CompletableFuture.allOf(slices.toArray(CompletableFuture[]::new)).join();
			} catch (CompletionException e) {
				stop.set(true);
				if (e.getCause() instanceof IOException io) {
					throw io;
				}
				throw e;
			}
		} finally {
			if (own != null) {
				own.shutdownNow();
			}
		}
		return new ExtractPlan(root, prefix, toWrite, identical.get(), bytes.get(), false);
	}

	/**
	 * @return entries per task for {@code files} entries on {@code workers} threads: an equal share of each worker,
	 *         within {@link #MIN_SLICE} and {@link #SLICE}
	 */
	static int sliceSize(int files, int workers) {
		return Math.max(MIN_SLICE, Math.min(SLICE, (files + workers - 1) / Math.max(1, workers)));
	}

	/**
	 * Stats files through their folder's open descriptor ({@code fstatat}), one folder at a time: a slice's files
	 * come in name order, so a folder's files come together. The kernel then looks up one name per file instead of
	 * walking its whole path, which was half of the stat's cost. Where the platform has no
	 * {@link SecureDirectoryStream}, a file is stat'ed by its path.
	 */
	private static final class FolderStat implements AutoCloseable {

		private final Path root;
		/** the folder open, relative to the root ("" the root); {@code null} before the first file */
		private String folder;
		/** {@code null}: the folder is absent or no folder (nothing in it), or the platform has no secure stream */
		private SecureDirectoryStream<Path> stream;
		private boolean pathsOnly;

		FolderStat(Path root) {
			this.root = root;
		}

		/** @return the attributes of file {@code rel} (not following a link), {@code null} if nothing is there */
		BasicFileAttributes attributes(String rel) throws IOException {
			int slash = rel.lastIndexOf('/');
			String parent = slash < 0 ? "" : rel.substring(0, slash);
			if (pathsOnly) {
				return attributesIfAny(root.resolve(rel));
			}
			if (!parent.equals(folder)) {
				open(parent);
				if (pathsOnly) {
					return attributesIfAny(root.resolve(rel));
				}
			}
			if (stream == null) {
				return null;
			}
			try {
				return stream.getFileAttributeView(root.getFileSystem().getPath(rel.substring(slash + 1)),
						BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).readAttributes();
			} catch (FileSystemException e) { // absent
				return null;
			}
		}

		private void open(String parent) throws IOException {
			close();
			folder = parent;
			DirectoryStream<Path> opened;
			try {
				opened = Files.newDirectoryStream(parent.isEmpty() ? root : root.resolve(parent));
			} catch (FileSystemException e) { // absent, or no folder: nothing in it is there
				return;
			}
			if (opened instanceof SecureDirectoryStream<Path> secure) {
				stream = secure;
			} else {
				opened.close();
				pathsOnly = true;
			}
		}

		private static BasicFileAttributes attributesIfAny(Path file) throws IOException {
			try {
				return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
			} catch (FileSystemException e) {
				return null;
			}
		}

		@Override
		public void close() throws IOException {
			if (stream != null) {
				stream.close();
				stream = null;
			}
		}
	}

	/** @return whether {@code root} is an empty directory or does not exist (a link or a file is not empty) */
	private static boolean isEmpty(Path root) throws IOException {
		if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
			return !Files.exists(root, LinkOption.NOFOLLOW_LINKS);
		}
		try (DirectoryStream<Path> children = Files.newDirectoryStream(root)) {
			return !children.iterator().hasNext();
		}
	}
}
