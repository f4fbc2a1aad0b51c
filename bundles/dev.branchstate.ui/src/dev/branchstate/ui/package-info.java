/**
 * Branchstate workbench integration: commands, preference pages, the Branch States view and notices. It talks
 * to the core bundle's API packages only.
 */
package dev.branchstate.ui;
