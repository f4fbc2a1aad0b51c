/**
 * State contributors: the reader of the extension point {@code dev.branchstate.core.contributors}
 * ({@link dev.branchstate.core.internal.contributors.ContributorRegistry}, lazy, cached, every call through
 * {@code SafeRunner}) and the built-in contributors for derived resources and problem markers.
 */
package dev.branchstate.core.internal.contributors;
