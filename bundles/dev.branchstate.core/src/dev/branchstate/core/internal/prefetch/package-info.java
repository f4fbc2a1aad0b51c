/**
 * Prefetch: when the remote-tracking branches of a repository with workspace projects move (a {@code git fetch} in
 * Eclipse or in a terminal), the nearest published state of each moved tip is fetched from the remote store into the
 * local store, in a low-priority background job that yields to builds and switches, within a budget, so that the
 * switch that follows restores from the local store without asking the remote store.
 */
package dev.branchstate.core.internal.prefetch;
