/**
 * Tests of the Branchstate UI in a real workbench under Xvfb: commands through the handler service, the preference
 * and property pages, the Branch States view, with real Git repositories made by JGit.
 */
package dev.branchstate.ui.tests;
