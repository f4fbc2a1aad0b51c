package dev.branchstate.core.internal.prefetch;

import java.io.File;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.eclipse.jgit.lib.Constants;

/**
 * Watches what a {@code git fetch} changes in a Git directory — the loose refs under {@code refs/remotes} (every
 * folder: a watch is not recursive), {@code packed-refs} and {@code FETCH_HEAD} — and what {@code git bisect} marks
 * (the refs under {@code refs/bisect}, then {@code HEAD}, which it checks out last), and tells the callback, on the
 * watcher's own daemon thread, which repository's refs may have moved. The callback must only schedule work. A folder
 * created under {@code refs/remotes} (a new remote, a branch name with slashes) is watched as it appears; {@code refs}
 * is watched for {@code refs/remotes} to appear at the first fetch and {@code refs/bisect} at each bisect's start.
 */
final class RemoteRefsWatcher implements AutoCloseable {

	private static final Set<String> FETCH_FILES = Set.of(Constants.PACKED_REFS, Constants.FETCH_HEAD);
	private static final String REMOTES = "remotes"; //$NON-NLS-1$
	private static final String BISECT = "bisect"; //$NON-NLS-1$

	/** What a watched folder is to the repository. */
	private enum Role {
		GIT_DIR, REFS, WATCHED_TREE
	}

	private record Watched(File gitDir, Path folder, Role role) {
	}

	private final WatchService service;
	private final Map<WatchKey, Watched> keys = new ConcurrentHashMap<>();
	private final Consumer<File> moved;
	private final Thread thread;

	/** @param moved told the Git directory of a repository whose remote-tracking refs may have moved */
	RemoteRefsWatcher(Consumer<File> moved) throws IOException {
		this.service = FileSystems.getDefault().newWatchService();
		this.moved = moved;
		this.thread = new Thread(this::run, "Branchstate remote refs watcher"); //$NON-NLS-1$
		thread.setDaemon(true);
		thread.start();
	}

	/** Watches the Git directory (as the repository's key). */
	void watch(File gitDir) throws IOException {
		Path dir = gitDir.toPath();
		register(gitDir, dir, Role.GIT_DIR);
		Path refs = dir.resolve(Constants.R_REFS);
		if (Files.isDirectory(refs)) {
			register(gitDir, refs, Role.REFS);
		}
		registerTree(gitDir, refs.resolve(REMOTES));
		registerTree(gitDir, refs.resolve(BISECT));
	}

	void unwatch(File gitDir) {
		for (Map.Entry<WatchKey, Watched> entry : List.copyOf(keys.entrySet())) {
			if (entry.getValue().gitDir().equals(gitDir)) {
				entry.getKey().cancel();
				keys.remove(entry.getKey());
			}
		}
	}

	/** @return the Git directories watched */
	Set<File> watched() {
		return Set.copyOf(keys.values().stream().map(Watched::gitDir).toList());
	}

	private void register(File gitDir, Path folder, Role role) throws IOException {
		WatchKey key = folder.register(service, StandardWatchEventKinds.ENTRY_CREATE,
				StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_DELETE);
		keys.put(key, new Watched(gitDir, folder, role));
	}

	private void registerTree(File gitDir, Path top) throws IOException {
		if (!Files.isDirectory(top)) {
			return;
		}
		try (Stream<Path> folders = Files.walk(top)) {
			for (Path folder : folders.filter(Files::isDirectory).toList()) {
				register(gitDir, folder, Role.WATCHED_TREE);
			}
		}
	}

	private void run() {
		try {
			while (true) {
				WatchKey key = service.take();
				Watched watched = keys.get(key);
				boolean changed = false;
				for (WatchEvent<?> event : key.pollEvents()) {
					changed |= watched == null || event.kind() == StandardWatchEventKinds.OVERFLOW
							|| event.context() instanceof Path name && changes(watched, name);
				}
				key.reset();
				if (changed && watched != null) {
					moved.accept(watched.gitDir());
				}
			}
		} catch (InterruptedException | ClosedWatchServiceException e) {
			// closed
		}
	}

	/** @return whether the event on {@code name} may move a ref the prefetch follows; watches folders that appeared */
	private boolean changes(Watched watched, Path name) {
		return switch (watched.role()) {
		case GIT_DIR -> FETCH_FILES.contains(name.toString()) || Constants.HEAD.equals(name.toString());
		case REFS -> {
			if (REMOTES.equals(name.toString()) || BISECT.equals(name.toString())) {
				newFolders(watched.gitDir(), watched.folder().resolve(name));
				yield true;
			}
			yield false;
		}
		case WATCHED_TREE -> {
			newFolders(watched.gitDir(), watched.folder().resolve(name));
			yield true;
		}
		};
	}

	private void newFolders(File gitDir, Path path) {
		if (Files.isDirectory(path)) {
			try {
				registerTree(gitDir, path);
			} catch (IOException e) {
				// gone again, or unreadable: FETCH_HEAD still tells of the next fetch
			}
		}
	}

	@Override
	public void close() {
		try {
			service.close();
		} catch (IOException e) {
			// nothing more to release
		}
		thread.interrupt();
	}
}
