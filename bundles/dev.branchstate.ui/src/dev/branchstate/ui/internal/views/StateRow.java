package dev.branchstate.ui.internal.views;

import java.io.File;

import dev.branchstate.core.StateInfo;

/**
 * One stored state as the view shows it.
 *
 * @param gitDir  the repository
 * @param state   the state
 * @param message the first line of its commit's message, or {@code null} when the commit is not in the repository
 * @param head    whether HEAD is at the state's commit (the current one)
 */
public record StateRow(File gitDir, StateInfo state, String message, boolean head) {
}
