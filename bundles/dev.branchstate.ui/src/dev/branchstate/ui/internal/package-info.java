/**
 * Shared pieces of the Branchstate UI: access to the core state service (an OSGi service, tracked), messages,
 * logging, formatting of figures, Git look-ups with JGit, and the non-modal notices shown after automatic switches.
 */
package dev.branchstate.ui.internal;
