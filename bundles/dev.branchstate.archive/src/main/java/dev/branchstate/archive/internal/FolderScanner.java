package dev.branchstate.archive.internal;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.DirectoryIteratorException;
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
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import dev.branchstate.archive.TreeFilter;

/**
 * Reads a tree for the writer's walk, ahead of it, on threads of their own: folder by folder, each folder's names
 * sorted with the attributes of each (an lstat, links not followed) and which of its sub-folders the filter lets the
 * walk enter. The walk takes the listings depth first, in name order ({@link #next}); its own work per entry then
 * overlaps the system calls.
 * <p>
 * The readers take the folder that comes first in the walk's order among those still to read, so they stay just ahead
 * of the walk, and at most {@code maxAhead} listings read by them wait to be taken, which bounds the memory they
 * hold. A folder the walk comes to before any reader took it is read by the walk itself: the walk never waits for a
 * reader that cannot go on.
 */
final class FolderScanner implements AutoCloseable {

	/** A folder's names, sorted, their attributes, and whether the walk enters each (a folder not excluded). */
	record Listing(List<Path> children, List<String> rels, List<BasicFileAttributes> attributes, boolean[] enter) {
	}

	/** Threads reading at most: two keep the walk fed on the machines measured (its work per entry is the larger). */
	static final int MAX_READERS = 2;
	/** Listings read ahead of the walk at most. */
	static final int MAX_AHEAD = 256;

	private final TreeFilter filter;
	/** Folders to read, the first in the walk's order at the head; guarded by {@code this}. */
	private final PriorityQueue<Folder> toRead = new PriorityQueue<>((a, b) -> Arrays.compare(a.order, b.order));
	/** Readers reading a folder now; guarded by {@code this}. */
	private int reading;
	private final Semaphore ahead;
	private final List<Thread> readers = new ArrayList<>();
	private volatile boolean closed;
	/** The walk's own: the folders it will take, in its order (the next at the head). */
	private final ArrayDeque<Folder> walkOrder = new ArrayDeque<>();

	/**
	 * Starts reading the tree at {@code root}.
	 *
	 * @param filter which sub-folders to enter, by their path relative to {@code root}
	 */
	FolderScanner(Path root, TreeFilter filter) {
		this(root, filter, Math.min(MAX_READERS, Runtime.getRuntime().availableProcessors()), MAX_AHEAD);
	}

	FolderScanner(Path root, TreeFilter filter, int readerCount, int maxAhead) {
		this.filter = filter;
		this.ahead = new Semaphore(maxAhead);
		Folder top = new Folder(root, "", new int[0]);
		toRead.add(top);
		walkOrder.add(top);
		for (int i = 0; i < Math.max(1, readerCount); i++) {
			readers.add(Thread.ofPlatform().name("branchstate-archive-scan").daemon().unstarted(this::readFolders));
		}
		readers.forEach(Thread::start);
	}

	/** A reader: reads the first folder to read while the walk is not too far behind, until none is left. */
	private void readFolders() {
		try {
			while (!closed) {
				ahead.acquire();
				Folder f;
				synchronized (this) {
					while ((f = toRead.poll()) == null) {
						if (reading == 0 || closed) {
							ahead.release();
							return; // none left to read and none being read (by a reader or the walk): all read
						}
						wait();
					}
					reading++;
				}
				try {
					if (!f.read(true)) {
						ahead.release(); // the walk took it first
					}
				} finally {
					synchronized (this) {
						reading--;
						notifyAll();
					}
				}
			}
		} catch (InterruptedException e) {
			// closed
		}
	}

	/** Queues the folders a listing lets the walk enter, for the readers. */
	private synchronized void toRead(List<Folder> found) {
		toRead.addAll(found);
		notifyAll();
	}

	/** @return the next folder's listing, in the walk's order */
	Listing next() throws IOException {
		Folder f = walkOrder.pollFirst();
		if (f == null) {
			throw new IllegalStateException("no folder left to read");
		}
		boolean read;
		synchronized (this) {
			reading++; // the readers wait for the folders this one will find
		}
		try {
			read = f.read(false);
		} finally {
			synchronized (this) {
				reading--;
				notifyAll();
			}
		}
		if (!read) {
			f.awaitRead();
		}
		if (f.byReader) {
			ahead.release();
		}
		if (f.failure != null) {
			throw f.failure;
		}
		for (int i = f.subfolders.size() - 1; i >= 0; i--) {
			walkOrder.addFirst(f.subfolders.get(i));
		}
		return f.listing;
	}

	/** A folder of the tree: read once, by a reader or by the walk, whichever takes it first. */
	private final class Folder {
		final Path dir;
		final String rel;
		/** Its place in the walk's order: the indices of it and its ancestors among their sub-folders. */
		final int[] order;
		private boolean taken;
		private boolean done;
		boolean byReader;
		Listing listing;
		List<Folder> subfolders = List.of();
		IOException failure;

		Folder(Path dir, String rel, int[] order) {
			this.dir = dir;
			this.rel = rel;
			this.order = order;
		}

		/** Reads this folder on the calling thread, unless another thread took it. @return whether this one did */
		boolean read(boolean reader) {
			synchronized (this) {
				if (taken) {
					return false;
				}
				taken = true;
				byReader = reader;
			}
			Listing l = null;
			List<Folder> found = List.of();
			IOException failed = null;
			try {
				l = list(dir, rel, filter);
				found = new ArrayList<>();
				for (int i = 0; i < l.children().size(); i++) {
					if (l.enter()[i]) {
						int[] o = Arrays.copyOf(order, order.length + 1);
						o[order.length] = found.size();
						found.add(new Folder(l.children().get(i), l.rels().get(i), o));
					}
				}
			} catch (IOException e) {
				failed = e;
			} catch (DirectoryIteratorException e) {
				failed = e.getCause();
			} catch (RuntimeException e) {
				failed = new IOException("cannot read folder " + dir + ": " + e, e);
			}
			synchronized (this) {
				listing = l;
				subfolders = found;
				failure = failed;
				done = true;
				notifyAll();
			}
			FolderScanner.this.toRead(found);
			return true;
		}

		synchronized void awaitRead() throws InterruptedIOException {
			while (!done) {
				try {
					wait();
				} catch (InterruptedException e) {
					Thread.currentThread().interrupt();
					throw new InterruptedIOException("interrupted while reading a folder");
				}
			}
		}
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

	/** Stops the readers (a walk that failed or was canceled need not take every listing) and waits for them. */
	@Override
	public void close() {
		closed = true;
		readers.forEach(Thread::interrupt);
		try {
			for (Thread t : readers) {
				t.join(TimeUnit.SECONDS.toMillis(10));
			}
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
		}
	}
}
