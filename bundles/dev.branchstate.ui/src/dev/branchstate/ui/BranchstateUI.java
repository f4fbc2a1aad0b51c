package dev.branchstate.ui;

/**
 * Identifiers of the Branchstate workbench contributions, for products and plugins that place, open or drive them
 * (perspectives, cheat sheets, tests).
 */
public final class BranchstateUI {

	/** The "Branch States" view. */
	public static final String VIEW_ID = "dev.branchstate.ui.views.branchStates";

	/** The "Save State" command: saves the state of the selected project's repository. */
	public static final String SAVE_STATE_COMMAND_ID = "dev.branchstate.ui.saveState";

	/** The "Restore State…" command: asks which stored state to restore into the selected project's repository. */
	public static final String RESTORE_STATE_COMMAND_ID = "dev.branchstate.ui.restoreState";

	/** The workspace preference page. */
	public static final String PREFERENCE_PAGE_ID = "dev.branchstate.ui.preferencePage";

	/** The project property page. */
	public static final String PROPERTY_PAGE_ID = "dev.branchstate.ui.propertyPage";

	/** The family of every job the UI schedules ({@code Job.getJobManager().join(JOB_FAMILY, monitor)}). */
	public static final Object JOB_FAMILY = BranchstateUI.class;

	private BranchstateUI() {
	}
}
