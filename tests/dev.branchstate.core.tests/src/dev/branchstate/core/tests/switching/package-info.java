/**
 * Tests of switch detection and the switch protocol: real workspace, real Git repositories made with JGit (and the
 * git command line for terminal checkouts), a recording incremental builder that writes derived output and markers.
 */
package dev.branchstate.core.tests.switching;
