/**
 * The {@link dev.branchstate.core.IStateService} implementation, a Declarative Services component: saves the
 * state of a repository's projects into one state archive through every applicable contributor, restores it
 * transactionally per contributor, computes the paths changed since the state's commit with JGit, and tells
 * listeners.
 */
package dev.branchstate.core.internal.service;
