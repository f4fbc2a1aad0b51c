/**
 * The state store: one state archive per (repository, commit) in a folder, and the catalog of those states as an
 * EMF model ({@link dev.branchstate.core.internal.store.CatalogPackage}, defined in code) persisted atomically in
 * EMF's binary format. Retirement of superseded states and least-recently-used eviction under a disk budget.
 */
package dev.branchstate.core.internal.store;
