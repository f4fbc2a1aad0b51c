package dev.branchstate.core.internal.switching;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Watches the HEAD file of Git directories for changes made outside Eclipse (a {@code git checkout} in a terminal)
 * and tells the callback, on the watcher's own daemon thread, which repository's HEAD changed. The callback must
 * only schedule work. Git replaces HEAD by renaming {@code HEAD.lock}, which the watch sees as a creation of HEAD.
 */
final class HeadWatcher implements AutoCloseable {

	private static final String HEAD = "HEAD"; //$NON-NLS-1$

	private final WatchService service;
	private final Map<WatchKey, String> keys = new ConcurrentHashMap<>();
	private final Map<String, WatchKey> byRepository = new ConcurrentHashMap<>();
	private final Consumer<String> changed;
	private final Runnable overflow;
	private final Thread thread;

	/**
	 * @param changed  told the key of a repository whose HEAD changed
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

	/** Watches the Git directory that holds HEAD of the repository named {@code key}. */
	void watch(String key, Path gitDir) throws IOException {
		WatchKey watchKey = gitDir.register(service, StandardWatchEventKinds.ENTRY_CREATE,
				StandardWatchEventKinds.ENTRY_MODIFY);
		keys.put(watchKey, key);
		WatchKey previous = byRepository.put(key, watchKey);
		if (previous != null && previous != watchKey) {
			previous.cancel();
			keys.remove(previous);
		}
	}

	void unwatch(String key) {
		WatchKey watchKey = byRepository.remove(key);
		if (watchKey != null) {
			watchKey.cancel();
			keys.remove(watchKey);
		}
	}

	private void run() {
		try {
			while (true) {
				WatchKey watchKey = service.take();
				String key = keys.get(watchKey);
				boolean headChanged = false;
				boolean lost = false;
				for (WatchEvent<?> event : watchKey.pollEvents()) {
					if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
						lost = true;
					} else if (event.context() instanceof Path name && HEAD.equals(name.toString())) {
						headChanged = true;
					}
				}
				watchKey.reset();
				if (lost) {
					overflow.run();
				} else if (headChanged && key != null) {
					changed.accept(key);
				}
			}
		} catch (InterruptedException | ClosedWatchServiceException e) {
			// closed
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
