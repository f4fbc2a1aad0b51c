package dev.branchstate.ui.internal;

import org.eclipse.swt.widgets.Control;
import org.eclipse.ui.PlatformUI;

/**
 * The F1 help contexts of Branchstate's pages and view: each id is a {@code <context>} of {@code help/contexts.xml}
 * in this bundle, which points at the page of the user guide that describes the control.
 */
public final class HelpContexts {

	/** Window › Preferences › Branchstate. */
	public static final String PREFERENCE_PAGE = "dev.branchstate.ui.preference_page"; //$NON-NLS-1$
	/** Window › Preferences › Branchstate › Remote Store. */
	public static final String REMOTE_STORE_PAGE = "dev.branchstate.ui.remote_store_page"; //$NON-NLS-1$
	/** A project's Properties › Branchstate. */
	public static final String PROPERTY_PAGE = "dev.branchstate.ui.property_page"; //$NON-NLS-1$
	/** The Branch States view. */
	public static final String BRANCH_STATES_VIEW = "dev.branchstate.ui.branch_states_view"; //$NON-NLS-1$

	private HelpContexts() {
	}

	/** Makes F1 on the control (or a control inside it) open the context's help. */
	public static void set(Control control, String contextId) {
		PlatformUI.getWorkbench().getHelpSystem().setHelp(control, contextId);
	}
}
