/**
 * Tests of the core bundle inside a running Eclipse: a real workspace and real Git repositories made with JGit.
 */
package dev.branchstate.core.tests;
