/**
 * Implementation of the Java index: the EMF package defined in code, the parser that turns a compilation unit into a
 * model, the per-project store of EMF binary resources in the bundle's state location, the background indexing job
 * and the Branchstate contributor that saves and restores the store.
 */
package dev.branchstate.javaindex.internal;
