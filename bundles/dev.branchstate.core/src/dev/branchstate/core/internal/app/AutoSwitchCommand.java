package dev.branchstate.core.internal.app;

import java.io.PrintStream;
import java.util.List;

import org.eclipse.core.runtime.Platform;
import org.eclipse.core.runtime.preferences.IEclipsePreferences;
import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.equinox.app.IApplication;
import org.osgi.service.prefs.BackingStoreException;

import dev.branchstate.core.BranchstatePreferences;

/**
 * The headless command {@code auto-switch on|off|default}: turns automatic switching on or off in the workspace's
 * preferences (instance scope), as the preference page does, or removes the workspace's value ({@code default}: the
 * product's default, or the one given with {@code -pluginCustomization}, applies). It applies to the switches that
 * follow, in this session and the next ones (the preference is saved). Prints {@code automatic switching on|off}.
 */
final class AutoSwitchCommand {

	private static final String ON = "on"; //$NON-NLS-1$
	private static final String OFF = "off"; //$NON-NLS-1$
	private static final String DEFAULT = "default"; //$NON-NLS-1$

	private AutoSwitchCommand() {
	}

	static Object run(List<String> args, PrintStream out, PrintStream err) {
		if (args.size() != 1 || !List.of(ON, OFF, DEFAULT).contains(args.get(0))) {
			return BranchstateApplication.usage("auto-switch takes on, off or default"); //$NON-NLS-1$
		}
		IEclipsePreferences node = InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE);
		switch (args.get(0)) {
		case ON -> node.putBoolean(BranchstatePreferences.AUTO_SWITCH, true);
		case OFF -> node.putBoolean(BranchstatePreferences.AUTO_SWITCH, false);
		default -> node.remove(BranchstatePreferences.AUTO_SWITCH);
		}
		try {
			node.flush();
		} catch (BackingStoreException e) {
			err.println("branchstate: the preference could not be saved: " + e.getMessage()); //$NON-NLS-1$
			return BranchstateApplication.EXIT_PROBLEM;
		}
		boolean on = Platform.getPreferencesService().getBoolean(BranchstatePreferences.NODE,
				BranchstatePreferences.AUTO_SWITCH, true, null);
		out.println("automatic switching " + (on ? ON : OFF)); //$NON-NLS-1$
		return IApplication.EXIT_OK;
	}
}
