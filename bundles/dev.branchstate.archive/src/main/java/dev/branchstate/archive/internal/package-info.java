/**
 * Implementation of the state archive engine: ZIP/Zip64 record encoding and parsing, the parallel writer with
 * its in-order region sequencer, the indexed reader and the parallel extractor. Not API: exported
 * {@code x-internal}.
 */
package dev.branchstate.archive.internal;
