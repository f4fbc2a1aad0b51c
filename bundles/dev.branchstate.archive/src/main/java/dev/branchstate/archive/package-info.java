/**
 * The state archive engine: a pure-Java, multi-threaded writer and reader of ZIP files (APPNOTE 6.3.x, Zip64)
 * whose entries are compressed with zstd (method 93) or stored. It imports nothing from Eclipse so that it can be
 * tested and benchmarked as a plain library; the core bundle wraps its exceptions into Eclipse statuses.
 */
package dev.branchstate.archive;
