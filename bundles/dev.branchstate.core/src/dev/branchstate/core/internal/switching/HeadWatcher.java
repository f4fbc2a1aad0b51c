package dev.branchstate.core.internal.switching;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.eclipse.jgit.lib.Constants;

/**
 * Watches, for changes made outside Eclipse, the HEAD file of Git directories (a {@code git checkout} in a terminal)
 * and their branches, {@code refs/heads} and every folder below it (a {@code git pull}, {@code reset} or
 * {@code commit} moves the branch checked out without touching HEAD), and tells the callback, on the watcher's own
 * daemon thread, which repository's HEAD may have moved. The callback must only schedule work. Git replaces a ref by
 * renaming its lock file, which the watch sees as a creation of the ref.
 */
final class HeadWatcher implements AutoCloseable {

	private static final String HEAD = "HEAD"; //$NON-NLS-1$

	/** A watched folder: the Git directory (only HEAD matters there) or a folder of branches. */
	private record Watched(String repository, boolean branches) {
	}

	private final WatchService service;
	/** What each watch is for: linked worktrees of one repository share its folders of branches. */
	private final Map<WatchKey, Set<Watched>> keys = new ConcurrentHashMap<>();
	private final Map<String, List<WatchKey>> byRepository = new ConcurrentHashMap<>();
	private final Consumer<String> changed;
	private final Runnable overflow;
	private final Thread thread;

	/**
	 * @param changed  told the key of a repository whose HEAD may have moved
	 * @param overflow told when events were lost (check every repository)
	 */
	HeadWatcher(Consumer<String> changed, Runnable overflow) throws IOException {
		this.service = FileSystems.getDefault().newWatchService();
		this.changed = changed;
		this.overflow = overflow;
		this.thread = new Thread(this::run, "Branchstate HEAD watcher"); //$NON-NLS-1$
		thread.setDaemon(true);
		thread.start();
	}

	/** Watches HEAD and the branches of the repository named {@code key}, whose Git directory is {@code gitDir}. */
	void watch(String key, Path gitDir) throws IOException {
		unwatch(key);
		List<WatchKey> watched = new CopyOnWriteArrayList<>();
		byRepository.put(key, watched);
		register(new Watched(key, false), gitDir, watched);
		registerTree(key, commonDirectory(gitDir).resolve(Constants.R_HEADS), watched);
	}

	void unwatch(String key) {
		List<WatchKey> watched = byRepository.remove(key);
		if (watched == null) {
			return;
		}
		for (WatchKey watchKey : watched) {
			Set<Watched> left = keys.computeIfPresent(watchKey, (k, set) -> {
				set.removeIf(w -> w.repository().equals(key));
				return set.isEmpty() ? null : set;
			});
			if (left == null) {
				watchKey.cancel();
			}
		}
	}

	private void register(Watched what, Path folder, List<WatchKey> watched) throws IOException {
		WatchKey watchKey = folder.register(service, StandardWatchEventKinds.ENTRY_CREATE,
				StandardWatchEventKinds.ENTRY_MODIFY);
		keys.computeIfAbsent(watchKey, k -> ConcurrentHashMap.newKeySet()).add(what);
		watched.add(watchKey);
	}

	private void registerTree(String key, Path top, List<WatchKey> watched) throws IOException {
		if (!Files.isDirectory(top)) {
			return;
		}
		try (Stream<Path> folders = Files.walk(top)) {
			for (Path folder : folders.filter(Files::isDirectory).toList()) {
				register(new Watched(key, true), folder, watched);
			}
		}
	}

	/** @return the folder that holds the refs: the main Git directory of a linked worktree's ({@code commondir}) */
	private static Path commonDirectory(Path gitDir) {
		try {
			Path common = gitDir.resolve("commondir"); //$NON-NLS-1$
			if (Files.isRegularFile(common)) {
				return gitDir.resolve(Files.readString(common).strip()).normalize();
			}
		} catch (IOException | RuntimeException e) {
			// the Git directory's own refs, then
		}
		return gitDir;
	}

	private void run() {
		try {
			while (true) {
				WatchKey watchKey = service.take();
				Set<Watched> watched = keys.getOrDefault(watchKey, Set.of());
				Set<String> moved = new HashSet<>();
				boolean lost = false;
				for (WatchEvent<?> event : watchKey.pollEvents()) {
					if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
						lost = true;
					} else if (event.context() instanceof Path name) {
						for (Watched w : watched) {
							if (w.branches()) {
								moved.add(w.repository());
								newFolder(w.repository(), ((Path) watchKey.watchable()).resolve(name));
							} else if (HEAD.equals(name.toString())) {
								moved.add(w.repository());
							}
						}
					}
				}
				watchKey.reset();
				if (lost) {
					overflow.run();
				} else {
					moved.forEach(changed);
				}
			}
		} catch (InterruptedException | ClosedWatchServiceException e) {
			// closed
		}
	}

	/** A folder of branches that appeared (a branch name with a slash) is watched too. */
	private void newFolder(String key, Path path) {
		List<WatchKey> watched = byRepository.get(key);
		if (watched != null && Files.isDirectory(path)) {
			try {
				registerTree(key, path, watched);
			} catch (IOException e) {
				// gone again: the build's check still finds a moved HEAD
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
