/**
 * Branchstate core API: the state service, the contributor interface that plugins implement through the
 * {@code dev.branchstate.core.contributors} extension point, and the state events that the UI and tests observe.
 */
package dev.branchstate.core;
