/**
 * The "Save State" and "Restore State…" commands: their handlers, the jobs they schedule, the dialog that picks a
 * state, and the property tester that enables them for projects in a Git repository.
 */
package dev.branchstate.ui.internal.handlers;
