package dev.branchstate.core.internal.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import dev.branchstate.core.StateInfo;

/**
 * What the archives of some states take on disk. A state that shares a previous state's entries links the files it
 * continues: the same bytes under several names, counted here once (by the file system's key of each file: the
 * inode on Unix), and freed only when the last state linking them goes.
 */
final class DiskUse {

	private record File(Object key, long size) {
	}

	private final Map<StateInfo, List<File>> files = new IdentityHashMap<>();
	private final Map<Object, Integer> users = new HashMap<>();
	private long total;

	DiskUse(List<StateInfo> states) {
		states.forEach(this::add);
	}

	long total() {
		return total;
	}

	void add(StateInfo state) {
		List<File> own = new ArrayList<>();
		for (Path path : StateStore.filesOf(state.archive())) {
			own.add(fileOf(path, state));
		}
		files.put(state, own);
		for (File f : own) {
			if (users.merge(f.key(), Integer.valueOf(1), Integer::sum).intValue() == 1) {
				total += f.size();
			}
		}
	}

	/** @return what removing {@code state} would free: its files that no other state links */
	long freedBy(StateInfo state) {
		long freed = 0;
		for (File f : files.getOrDefault(state, List.of())) {
			if (users.getOrDefault(f.key(), Integer.valueOf(0)).intValue() == 1) {
				freed += f.size();
			}
		}
		return freed;
	}

	void remove(StateInfo state) {
		List<File> own = files.remove(state);
		if (own == null) {
			return;
		}
		for (File f : own) {
			int left = users.merge(f.key(), Integer.valueOf(-1), Integer::sum).intValue();
			if (left == 0) {
				users.remove(f.key());
				total -= f.size();
			}
		}
	}

	/** @return the file's key and size; a missing or unreadable file counts as the size the catalog recorded */
	private static File fileOf(Path path, StateInfo state) {
		try {
			BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
			Object key = a.fileKey();
			return new File(key != null ? key : path.toAbsolutePath().normalize(), a.size());
		} catch (IOException e) {
			return new File(path.toAbsolutePath().normalize(), path.equals(state.archive()) ? state.size() : 0);
		}
	}
}
