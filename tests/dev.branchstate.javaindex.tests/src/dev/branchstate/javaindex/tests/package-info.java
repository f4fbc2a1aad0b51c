/**
 * OSGi tests of the Java index: queries on hand-written and real sources, incremental indexing by content hash, and
 * save and restore of the index through its Branchstate contributor with state archives of the real archive engine.
 */
package dev.branchstate.javaindex.tests;
