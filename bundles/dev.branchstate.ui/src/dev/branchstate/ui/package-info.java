/**
 * Branchstate workbench integration: the identifiers of its commands, view and preference pages. The
 * implementation (handlers, pages, the Branch States view, notices) lives in the internal packages and talks to the
 * core bundle's API packages only.
 */
package dev.branchstate.ui;
