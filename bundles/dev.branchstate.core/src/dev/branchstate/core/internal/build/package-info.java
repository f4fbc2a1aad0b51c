/**
 * What the workspace's builders have built: the one place that reads the platform's internal build manager (each
 * builder's last built tree), behind a capability check with a safe answer when the internals are missing.
 */
package dev.branchstate.core.internal.build;
