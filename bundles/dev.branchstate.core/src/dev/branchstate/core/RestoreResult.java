package dev.branchstate.core;

import java.time.Duration;

/**
 * What a restore did.
 *
 * @param state          the state restored
 * @param filesRestored  derived files the state holds
 * @param filesWritten   derived files that differed on disk and were rewritten (the rest were left untouched)
 * @param filesDeleted   stale derived files removed
 * @param changedSources source files that differ from the state and were handed to builders
 * @param duration       wall time
 */
public record RestoreResult(StateInfo state, long filesRestored, long filesWritten, long filesDeleted,
		long changedSources, Duration duration) {
}
