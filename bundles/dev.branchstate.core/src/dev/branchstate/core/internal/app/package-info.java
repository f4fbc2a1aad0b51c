/**
 * The headless application {@code dev.branchstate.core.app}: command-line entry to the state store, for CI
 * pre-building, the demo and the install test.
 */
package dev.branchstate.core.internal.app;
