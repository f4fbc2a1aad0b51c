/**
 * Switch detection and the switch protocol: notices every way HEAD of a repository holding workspace projects moves
 * (JGit ref events, a watch on HEAD, a check before every build, a HEAD moved while Eclipse was closed), keeps
 * builders waiting until the switch is handled, then saves the state being left and restores the state being
 * entered through {@link dev.branchstate.core.IStateService}, failing safe on any error.
 */
package dev.branchstate.core.internal.switching;
