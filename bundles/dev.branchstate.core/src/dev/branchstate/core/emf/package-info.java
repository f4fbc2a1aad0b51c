/**
 * Helpers for state contributors whose derived data are EMF resources: binary serialization of a resource into a
 * state archive and back ({@link dev.branchstate.core.emf.EmfStates}), and into a file written atomically.
 */
package dev.branchstate.core.emf;
