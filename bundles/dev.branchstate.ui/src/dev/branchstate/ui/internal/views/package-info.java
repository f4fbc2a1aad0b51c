/**
 * The "Branch States" view: the stored states of every repository in the workspace (branches, commit, sizes,
 * contributors), the one at HEAD marked, with restore, delete, reveal and refresh actions, kept current by the
 * state service's events.
 */
package dev.branchstate.ui.internal.views;
