/**
 * The JDT contributors: JDT's Java builder state, saved and restored per Java project so that the builder can be
 * handed the restored commit, and JDT's search index of the project's sources, so that JDT indexes only what differs
 * from the restored commit. {@link dev.branchstate.jdt.internal.JdtBuildStates} is the one class that reaches JDT's
 * internal builder state, {@link dev.branchstate.jdt.internal.JdtIndexes} the one that reaches its internal index.
 */
package dev.branchstate.jdt.internal;
