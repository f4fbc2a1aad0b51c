/**
 * Internals shared by the core bundle's packages: the NLS {@link dev.branchstate.core.internal.Messages} and the
 * {@link dev.branchstate.core.internal.Log} helper over {@code ILog}.
 */
package dev.branchstate.core.internal;
