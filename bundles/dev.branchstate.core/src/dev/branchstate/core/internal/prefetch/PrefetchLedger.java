package dev.branchstate.core.internal.prefetch;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiPredicate;

/**
 * What the prefetch downloaded, kept across sessions: the states it fetched that no switch has restored yet (their
 * sizes count against the prefetch's share of the disk budget; a restore or a deletion takes a state off the ledger),
 * and the bytes downloaded on the current day (UTC), against the daily maximum.
 */
public final class PrefetchLedger {

	private static final String STATE = "state|"; //$NON-NLS-1$
	private static final String DAY = "day"; //$NON-NLS-1$
	private static final String BYTES_TODAY = "bytesToday"; //$NON-NLS-1$

	private final PropertiesFile file;
	private final Clock clock;
	private Properties ledger;

	PrefetchLedger(Path file, Clock clock) {
		this.file = new PropertiesFile(file);
		this.clock = clock;
	}

	/** What the prefetch uses of its budget: bytes of states prefetched and not restored, bytes downloaded today. */
	public record Use(long prefetchedBytes, int prefetchedStates, long bytesToday) {
	}

	/**
	 * @param stored whether the store still holds the state of (repository, commit); states it evicted or the user
	 *               deleted are dropped from the ledger
	 */
	synchronized Use use(BiPredicate<File, String> stored) throws IOException {
		Properties p = load();
		long bytes = 0;
		int states = 0;
		boolean dropped = false;
		for (String key : p.stringPropertyNames()) {
			if (!key.startsWith(STATE)) {
				continue;
			}
			int bar = key.lastIndexOf('|');
			if (stored.test(new File(key.substring(STATE.length(), bar)), key.substring(bar + 1))) {
				bytes += Long.parseLong(p.getProperty(key));
				states++;
			} else {
				p.remove(key);
				dropped = true;
			}
		}
		if (dropped) {
			file.write(p);
		}
		return new Use(bytes, states, bytesToday(p));
	}

	/** @return whether the state of (repository, commit) was prefetched and no switch has restored it yet */
	public synchronized boolean prefetched(File gitDir, String commit) throws IOException {
		return load().containsKey(key(gitDir, commit));
	}

	/** @return the commits of the repository whose states were prefetched and no switch has restored yet */
	public synchronized Set<String> commits(File gitDir) throws IOException {
		String prefix = STATE + gitDir.getPath() + '|';
		Set<String> commits = new TreeSet<>();
		for (String key : load().stringPropertyNames()) {
			if (key.startsWith(prefix)) {
				commits.add(key.substring(prefix.length()));
			}
		}
		return commits;
	}

	/** Records a state prefetched: its archive's bytes, downloaded now. */
	synchronized void fetched(File gitDir, String commit, long bytes) throws IOException {
		Properties p = load();
		long today = bytesToday(p);
		p.setProperty(DAY, LocalDate.now(clock.withZone(ZoneOffset.UTC)).toString());
		p.setProperty(BYTES_TODAY, Long.toString(today + bytes));
		p.setProperty(key(gitDir, commit), Long.toString(bytes));
		file.write(p);
	}

	/** A prefetched state was restored or deleted: it no longer counts as prefetched. */
	synchronized void used(File gitDir, String commit) throws IOException {
		Properties p = load();
		if (p.remove(key(gitDir, commit)) != null) {
			file.write(p);
		}
	}

	private long bytesToday(Properties p) {
		String today = LocalDate.now(clock.withZone(ZoneOffset.UTC)).toString();
		return today.equals(p.getProperty(DAY)) ? Long.parseLong(p.getProperty(BYTES_TODAY, "0")) : 0; //$NON-NLS-1$
	}

	private Properties load() throws IOException {
		if (ledger == null) {
			ledger = file.read();
		}
		return ledger;
	}

	private static String key(File gitDir, String commit) {
		return STATE + gitDir.getPath() + '|' + commit;
	}
}
