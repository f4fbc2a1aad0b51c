package dev.branchstate.ui.internal;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.eclipse.jface.action.IStatusLineManager;
import org.eclipse.jface.layout.GridDataFactory;
import org.eclipse.jface.notifications.NotificationPopup;
import org.eclipse.swt.SWT;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Display;
import org.eclipse.swt.widgets.Label;
import org.eclipse.ui.IViewSite;
import org.eclipse.ui.IEditorSite;
import org.eclipse.ui.IWorkbench;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.IWorkbenchPart;
import org.eclipse.ui.IWorkbenchPartSite;
import org.eclipse.ui.IWorkbenchWindow;
import org.eclipse.ui.PlatformUI;

/**
 * Non-modal feedback: a small notification popup in the corner of the workbench window that fades away by itself,
 * and the status line. Nothing here blocks or takes the focus: it may be called from any thread, on the switch
 * path too.
 */
public final class Notices {

	/** How long a popup stays, in milliseconds. */
	private static final long POPUP_DELAY = 8000;

	/** Width of a popup's text, in pixels: the popup is about 400 wide. */
	private static final int POPUP_TEXT_WIDTH = 360;

	/** A notice as shown, for tests and for the view's "last event" line. */
	public record Notice(String title, String text, boolean warning) {
	}

	private static final List<Notice> SHOWN = new CopyOnWriteArrayList<>();

	private Notices() {
	}

	/** Shows a popup (asynchronously, on the display thread) and puts the text on the status line. */
	public static void popup(String title, String text, boolean warning) {
		Notice notice = new Notice(title, text, warning);
		SHOWN.add(notice);
		if (SHOWN.size() > 50) {
			SHOWN.remove(0);
		}
		Display display = display();
		if (display == null) {
			return;
		}
		display.asyncExec(() -> {
			if (display.isDisposed()) {
				return;
			}
			NotificationPopup.forDisplay(display).title(title, true).content(parent -> wrappingLabel(parent, text))
					.delay(warning ? 2 * POPUP_DELAY : POPUP_DELAY).open();
			statusLine(text, warning);
		});
	}

	/** Puts a message on the status line of the active window (asynchronously, on the display thread). */
	public static void status(String text, boolean warning) {
		Display display = display();
		if (display != null) {
			display.asyncExec(() -> {
				if (!display.isDisposed()) {
					statusLine(text, warning);
				}
			});
		}
	}

	/** The popup's own text label does not wrap: a sentence with a reason would be cut at the popup's edge. */
	private static Control wrappingLabel(Composite parent, String text) {
		Label label = new Label(parent, SWT.WRAP);
		label.setText(text);
		GridDataFactory.fillDefaults().grab(true, false).hint(POPUP_TEXT_WIDTH, SWT.DEFAULT).applyTo(label);
		return label;
	}

	/** @return the notices shown since start-up, oldest first (the last 50) */
	public static List<Notice> shown() {
		return List.copyOf(SHOWN);
	}

	private static void statusLine(String text, boolean warning) {
		IWorkbench workbench = PlatformUI.getWorkbench();
		IWorkbenchWindow window = workbench.getActiveWorkbenchWindow();
		if (window == null && workbench.getWorkbenchWindowCount() > 0) {
			window = workbench.getWorkbenchWindows()[0];
		}
		IWorkbenchPage page = window == null ? null : window.getActivePage();
		IWorkbenchPart part = page == null ? null : page.getActivePart();
		IWorkbenchPartSite site = part == null ? null : part.getSite();
		IStatusLineManager statusLine = null;
		if (site instanceof IViewSite viewSite) {
			statusLine = viewSite.getActionBars().getStatusLineManager();
		} else if (site instanceof IEditorSite editorSite) {
			statusLine = editorSite.getActionBars().getStatusLineManager();
		}
		if (statusLine != null) {
			if (warning) {
				statusLine.setErrorMessage(text);
			} else {
				statusLine.setErrorMessage(null);
				statusLine.setMessage(text);
			}
		}
	}

	private static Display display() {
		if (!PlatformUI.isWorkbenchRunning()) {
			return null;
		}
		Display display = PlatformUI.getWorkbench().getDisplay();
		return display == null || display.isDisposed() ? null : display;
	}
}
