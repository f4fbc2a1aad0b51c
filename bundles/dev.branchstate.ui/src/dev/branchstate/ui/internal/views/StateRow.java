package dev.branchstate.ui.internal.views;

import java.io.File;

import dev.branchstate.core.StateInfo;

/**
 * One state as the view shows it: stored here, in the remote store, or both.
 *
 * @param gitDir  the repository
 * @param state   the state; for one only in the remote store, its commit alone (no archive, no figures)
 * @param message the first line of its commit's message, or {@code null} when the commit is not in the repository
 * @param head    whether HEAD is at the state's commit (the current one)
 * @param where      where it is stored
 * @param prefetched whether it was fetched ahead of a switch (after a {@code git fetch}) and no switch restored it yet
 */
public record StateRow(File gitDir, StateInfo state, String message, boolean head, Where where, boolean prefetched) {

	/** Where a state is stored. */
	public enum Where {
		LOCAL, REMOTE, BOTH
	}

	/** @return whether it is in the local store (it can be restored, deleted, its archive shown) */
	public boolean local() {
		return where != Where.REMOTE;
	}
}
