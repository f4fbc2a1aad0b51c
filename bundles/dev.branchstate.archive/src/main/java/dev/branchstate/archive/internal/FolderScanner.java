package dev.branchstate.archive.internal;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.branchstate.archive.TreeFilter;

/**
 * Reads a tree for the writer's walk, ahead of it, on a thread of its own: folder by folder in the order the walk
 * visits them (depth first, names sorted), each folder's names with the attributes of each (an lstat, links not
 * followed) and which of its sub-folders the filter lets the walk enter. The walk takes the listings in that same
 * order ({@link #next}); its own work per entry then overlaps the system calls. The listings are handed over in
 * batches, and at most about {@link #MAX_AHEAD} wait to be taken, which bounds the memory they hold.
 */
final class FolderScanner implements AutoCloseable {

	/** A folder's names, sorted, their attributes, and whether the walk enters each (a folder not excluded). */
	record Listing(List<Path> children, List<String> rels, List<BasicFileAttributes> attributes, boolean[] enter) {
	}

	/** Listings handed over together. */
	private record Batch(List<Listing> listings) {
	}

	/** The end of the listings: the reading failed, or (failure {@code null}) every folder was read. */
	private record End(IOException failure) {
	}

	/** Listings handed over at once, at most: few enough that the walk soon has work, enough to wake it rarely. */
	private static final int BATCH_FOLDERS = 64;
	private static final int BATCH_NAMES = 2048;
	private static final int MAX_AHEAD = 1024;

	/** Batches of listings (each a few kB of names and attributes), then one {@link End}. */
	private final BlockingQueue<Object> listings = new ArrayBlockingQueue<>(MAX_AHEAD / BATCH_FOLDERS);
	private final Thread reader;
	private volatile boolean closed;
	/** The reading thread's batch being filled. */
	private List<Listing> batch = new ArrayList<>();
	private int batchNames;
	/** The walk's listings taken and not yet walked. */
	private final ArrayDeque<Listing> taken = new ArrayDeque<>();

	/**
	 * Starts reading the tree at {@code root}.
	 *
	 * @param filter which sub-folders to enter, by their path relative to {@code root}
	 */
	FolderScanner(Path root, TreeFilter filter) {
		this.reader = new Thread(() -> {
			Object last;
			try {
				read(root, "", filter);
				flush();
				last = new End(null);
			} catch (IOException e) {
				last = new End(e);
			} catch (InterruptedException e) {
				return; // closed
			}
			try {
				flush(); // what was read before a failure: the walk takes it before it comes to the failure
				listings.put(last);
			} catch (InterruptedException e) {
				// closed
			}
		}, "branchstate-archive-scan");
		reader.setDaemon(true);
		reader.start();
	}

	private void read(Path dir, String rel, TreeFilter filter) throws IOException, InterruptedException {
		if (closed) {
			throw new InterruptedException();
		}
		Listing listing = list(dir, rel, filter);
		batch.add(listing);
		batchNames += listing.children().size();
		if (batch.size() >= BATCH_FOLDERS || batchNames >= BATCH_NAMES) {
			flush();
		}
		for (int i = 0; i < listing.children().size(); i++) {
			if (listing.enter()[i]) {
				read(listing.children().get(i), listing.rels().get(i), filter);
			}
		}
	}

	/** Hands the listings read so far to the walk: in batches, one wake-up of a waiting walk each. */
	private void flush() throws InterruptedException {
		if (!batch.isEmpty()) {
			listings.put(new Batch(batch));
			batch = new ArrayList<>();
			batchNames = 0;
		}
	}

	/** @return the next folder's listing, in the walk's order */
	Listing next() throws IOException {
		while (taken.isEmpty()) {
			Object next;
			try {
				next = listings.take();
			} catch (InterruptedException e) {
				Thread.currentThread().interrupt();
				throw new InterruptedIOException("interrupted while reading a folder");
			}
			if (next instanceof Batch b) {
				taken.addAll(b.listings());
			} else {
				End end = (End) next;
				if (end.failure() != null) {
					throw end.failure();
				}
				throw new IllegalStateException("no folder left to read");
			}
		}
		return taken.removeFirst();
	}

	/** Reads {@code dir} (whose path relative to the tree's root is {@code rel}) on the calling thread. */
	static Listing list(Path dir, String rel, TreeFilter filter) throws IOException {
		List<Path> children = new ArrayList<>();
		try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
			for (Path p : ds) {
				children.add(p);
			}
			children.sort(null);
			int n = children.size();
			List<String> rels = new ArrayList<>(n);
			List<BasicFileAttributes> attributes = new ArrayList<>(n);
			boolean[] enter = new boolean[n];
			for (int i = 0; i < n; i++) {
				Path child = children.get(i);
				String name = child.getFileName().toString();
				String childRel = rel.isEmpty() ? name : rel + "/" + name;
				// through the open folder where the platform can (fstatat: the kernel looks up one name, not the path)
				BasicFileAttributes a = ds instanceof SecureDirectoryStream<Path> folder
						? readAttributes(folder, child.getFileName())
						: readAttributes(child);
				rels.add(childRel);
				attributes.add(a);
				enter[i] = a.isDirectory() && !filter.excludesDirectory(child.getFileSystem().getPath(childRel));
			}
			return new Listing(children, rels, attributes, enter);
		}
	}

	private static BasicFileAttributes readAttributes(SecureDirectoryStream<Path> folder, Path name)
			throws IOException {
		PosixFileAttributeView posix = folder.getFileAttributeView(name, PosixFileAttributeView.class,
				LinkOption.NOFOLLOW_LINKS);
		return posix != null ? posix.readAttributes()
				: folder.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
						.readAttributes();
	}

	/** One lstat, with the POSIX attributes (the mode) where the file system has them. */
	static BasicFileAttributes readAttributes(Path p) throws IOException {
		try {
			return Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
		} catch (UnsupportedOperationException e) {
			return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
		}
	}

	/** Stops the reading thread (a walk that failed or was canceled need not take every listing) and waits for it. */
	@Override
	public void close() {
		closed = true;
		reader.interrupt();
		try {
			reader.join(TimeUnit.SECONDS.toMillis(10));
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
		}
	}
}
