/**
 * The Branchstate preference page (workspace, instance scope) and project property page (project scope, overriding
 * the workspace), their field editors and the validation that refuses values core could not use.
 */
package dev.branchstate.ui.internal.preferences;
