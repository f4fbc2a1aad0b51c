/**
 * The JDT contributor: JDT's Java builder state, saved and restored per Java project so that the builder can be
 * handed the restored commit. {@link dev.branchstate.jdt.internal.JdtBuildStates} is the one class that reaches
 * JDT's internal builder state.
 */
package dev.branchstate.jdt.internal;
