package dev.branchstate.core.internal;

/**
 * Where the wall time of one piece of work went, lap by lap, written to the platform's trace under the
 * {@value Trace#TIMING} option as one line when the work ends: {@code "restore 5ce18c36be 412 ms: plan 12, check 80,
 * ..."}. Costs nothing when the option is off (every call returns at once). Not thread-safe: one thread's work.
 */
public final class Laps {

	private static final Laps OFF = new Laps(null);

	private final StringBuilder line;
	/** Where the name of the work ends in {@link #line} (a name may hold a colon: a Windows path). */
	private final int nameEnd;
	private final long start;
	private long last;
	private boolean lapped;

	private Laps(String what) {
		this.line = what == null ? null : new StringBuilder(what);
		this.nameEnd = what == null ? 0 : what.length();
		this.start = System.nanoTime();
		this.last = start;
	}

	/** @return laps of the work named, or ones that record nothing when the timing trace is off */
	public static Laps start(String what) {
		return Trace.on(Trace.TIMING) ? new Laps(what) : OFF;
	}

	/** Ends the lap: the time since the last lap (or the start) goes to {@code name}. */
	public void lap(String name) {
		if (line == null) {
			return;
		}
		long now = System.nanoTime();
		line.append(lapped ? ", " : ": ").append(name).append(' ').append((now - last) / 1_000_000); //$NON-NLS-1$ //$NON-NLS-2$
		lapped = true;
		last = now;
	}

	/** Writes the line, with the total, to the trace. */
	public void end() {
		if (line == null) {
			return;
		}
		long total = (System.nanoTime() - start) / 1_000_000;
		line.insert(nameEnd, " " + total + " ms"); //$NON-NLS-1$ //$NON-NLS-2$
		Trace.trace(Trace.TIMING, line.toString());
	}
}
