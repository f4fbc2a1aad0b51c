package dev.branchstate.ui.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;

import org.eclipse.core.runtime.preferences.IEclipsePreferences;
import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.jface.preference.PreferenceDialog;
import org.eclipse.jface.preference.PreferencePage;
import org.eclipse.swt.SWT;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.swt.widgets.Text;
import org.eclipse.ui.PlatformUI;
import org.eclipse.ui.dialogs.PreferencesUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.core.StateEvent;
import dev.branchstate.ui.internal.Notices;

/**
 * The Remote Store page's Test connection, the values typed on the page (not saved) tested in the background: against
 * a real S3 server (S3Proxy on 127.0.0.1, checking signatures) with the right and a wrong secret key, and against an
 * endpoint where nothing listens; the page says in plain words whether it is connected, and where and why not. (The
 * check of published manifests and their signatures is core's RemoteStoreCheckTest.) And a store given up after
 * repeated failures is told to the user as a notice.
 */
class TestConnectionTest {

	private PreferenceDialog dialog;

	@AfterEach
	void tearDown() throws Exception {
		if (dialog != null) {
			dialog.close();
		}
		IEclipsePreferences instance = InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE);
		instance.clear();
		instance.flush();
	}

	@Test
	void testConnectionAgainstARealStoreWithTheRightAndAWrongSecret(@TempDir Path folder) throws Exception {
		try (S3ProxyServer server = new S3ProxyServer(folder)) {
			dialog = PreferencesUtil.createPreferenceDialogOn(shell(), "dev.branchstate.ui.remotePreferencePage", null,
					null);
			dialog.setBlockOnOpen(false);
			dialog.open();
			Composite page = (Composite) ((PreferencePage) dialog.getSelectedPage()).getControl();
			UiTestSupport.textAfterLabel(page, "Endpoint URL:").setText(server.endpoint.toString());
			UiTestSupport.textAfterLabel(page, "Bucket:").setText(S3ProxyServer.BUCKET);
			Button pathStyle = UiTestSupport.findButton(page,
					"Path-style addressing (endpoint/bucket/key; most stores that are not AWS)");
			pathStyle.setSelection(true);
			pathStyle.notifyListeners(SWT.Selection, null);
			UiTestSupport.textAfterLabel(page, "Access key:").setText(server.credentials.accessKey());
			Text secret = UiTestSupport.textAfterLabel(page, "Secret key:");
			secret.setText(server.credentials.secretKey());
			Button test = UiTestSupport.findButton(page, "Test connection");

			test.notifyListeners(SWT.Selection, null);
			UiTestSupport.waitUntil("the test's outcome on the page", Duration.ofSeconds(30),
					() -> test.getEnabled() && result(page).startsWith("Connected"));
			assertThat(result(page))
					.isEqualTo("Connected: the store answered, and no state is published under this prefix yet.");
			UiTestSupport.screenshot(dialog.getShell(), "remote-store-test-connection-connected");

			secret.setText("not-the-secret");
			test.notifyListeners(SWT.Selection, null);
			UiTestSupport.waitUntil("the test's outcome on the page", Duration.ofSeconds(30),
					() -> test.getEnabled() && result(page).startsWith("Not connected"));
			assertThat(result(page)).contains(server.endpoint.toString()).contains("bucket " + S3ProxyServer.BUCKET)
					.contains("HTTP 403");
		}
	}

	@Test
	void testConnectionTellsWhyAnUnreachableStoreIsNotConnected() throws Exception {
		int port;
		try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			port = s.getLocalPort();
		}
		dialog = PreferencesUtil.createPreferenceDialogOn(shell(), "dev.branchstate.ui.remotePreferencePage", null,
				null);
		dialog.setBlockOnOpen(false);
		dialog.open();
		Composite page = (Composite) ((PreferencePage) dialog.getSelectedPage()).getControl();
		UiTestSupport.textAfterLabel(page, "Endpoint URL:").setText("http://127.0.0.1:" + port);
		UiTestSupport.textAfterLabel(page, "Bucket:").setText("team-states");
		Button test = UiTestSupport.findButton(page, "Test connection");
		assertThat(test).isNotNull();

		test.notifyListeners(SWT.Selection, null);
		assertThat(test.getEnabled()).as("disabled while the test runs").isFalse();
		UiTestSupport.waitUntil("the test's outcome on the page", Duration.ofSeconds(30),
				() -> test.getEnabled() && result(page).startsWith("Not connected"));

		assertThat(result(page)).contains("http://127.0.0.1:" + port).contains("bucket team-states");
		assertThat(InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE)
				.get(BranchstatePreferences.REMOTE_ENDPOINT, null)).as("testing saves nothing").isNull();
		UiTestSupport.screenshot(dialog.getShell(), "remote-store-test-connection");
	}

	@Test
	void aStoreGivenUpIsShownAsAWarningNotice() {
		String message = "The remote state store http://127.0.0.1:9 bucket states failed 3 times in a row (last: "
				+ "connection refused). Branchstate leaves it alone until Eclipse restarts.";
		UiTestSupport.realService().fireEvent(new StateEvent(StateEvent.Kind.REMOTE_GIVEN_UP, null, null, null,
				message, org.eclipse.core.runtime.Status.warning(message), 0, 0, 0, Duration.ZERO));
		UiTestSupport.waitUntil("the notice", Duration.ofSeconds(10), () -> Notices.shown().stream()
				.anyMatch(n -> n.title().equals("Branchstate: remote store left alone") && n.text().equals(message)
						&& n.warning()));
	}

	/** @return the text of the wrapping label under the Test connection button, or "" */
	private static String result(Composite root) {
		String found = find(root);
		return found == null ? "" : found;
	}

	private static String find(Composite root) {
		Control[] children = root.getChildren();
		for (int i = 0; i < children.length; i++) {
			if (children[i] instanceof Button b && b.getText().replace("&", "").equals("Test connection")
					&& i + 1 < children.length && children[i + 1] instanceof Label label) {
				return label.getText();
			}
			if (children[i] instanceof Composite c) {
				String found = find(c);
				if (found != null) {
					return found;
				}
			}
		}
		return null;
	}

	private static Shell shell() {
		return PlatformUI.getWorkbench().getActiveWorkbenchWindow().getShell();
	}
}
