/**
 * The reference Java index: a background indexer keeps an EMF model of every Java compilation unit of the
 * workspace (parsed without bindings) and answers queries on it: declarations by simple name and files that
 * reference a simple name. It is an example of derived data that Branchstate saves and restores with a branch:
 * its data travels through the {@code dev.branchstate.core.contributors} extension point.
 */
package dev.branchstate.javaindex;
