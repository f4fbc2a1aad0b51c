package dev.branchstate.ui.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.ProjectScope;
import org.eclipse.core.runtime.Platform;
import org.eclipse.core.runtime.preferences.IEclipsePreferences;
import org.eclipse.core.runtime.preferences.IScopeContext;
import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.jface.preference.PreferenceDialog;
import org.eclipse.jface.preference.PreferencePage;
import org.eclipse.swt.SWT;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.swt.widgets.Text;
import org.eclipse.ui.PlatformUI;
import org.eclipse.ui.dialogs.PreferencesUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.ui.BranchstateUI;
import dev.branchstate.ui.internal.preferences.BranchstatePreferencePage;
import dev.branchstate.ui.internal.preferences.BranchstatePropertyPage;

/**
 * The preference page refuses values core could not use, with a message on the page, and stores valid ones in the
 * instance scope; the property page stores project-specific values in the project scope, where they win.
 */
class PreferencePagesTest {

	@TempDir
	Path tmp;

	private PreferenceDialog dialog;
	private IProject project;

	@AfterEach
	void tearDown() throws Exception {
		if (dialog != null) {
			dialog.close();
		}
		IEclipsePreferences instance = InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE);
		instance.clear();
		instance.flush();
		UiTestSupport.delete(project);
	}

	@Test
	void preferencePageValidatesAndStoresInInstanceScope() throws Exception {
		dialog = PreferencesUtil.createPreferenceDialogOn(shell(), BranchstateUI.PREFERENCE_PAGE_ID, null, null);
		dialog.setBlockOnOpen(false);
		dialog.open();
		BranchstatePreferencePage page = (BranchstatePreferencePage) dialog.getSelectedPage();
		Composite control = (Composite) page.getControl();

		Text budget = text(control, "Disk budget (MiB):");
		Text level = text(control, "Compression level (1-19):");
		Text threads = text(control, "Worker threads (0 = one per processor):");
		Text store = text(control, "State store folder:");
		Text branches = text(control, "Branches to keep:");
		Text derived = text(control, "Extra derived folders:");
		// the defaults core documents
		assertThat(budget.getText()).isEqualTo("10240");
		assertThat(level.getText()).isEqualTo("3");
		assertThat(branches.getText()).isEqualTo("*");
		assertThat(checkbox(control, "Save and restore states automatically when a branch is switched").getSelection())
				.isTrue();
		assertThat(page.isValid()).isTrue();

		expectRefused(page, budget, "50", "at least 100 MiB");
		expectRefused(page, level, "25", "from 1 to 19");
		expectRefused(page, level, "0", "from 1 to 19");
		expectRefused(page, threads, "-1", "from 0 (one per processor) to 256");
		expectRefused(page, branches, " , ", "at least one branch pattern");
		expectRefused(page, branches, "feature/[x", "not a valid glob pattern");
		expectRefused(page, derived, "../outside", "must be relative to the project");
		expectRefused(page, store, "relative/store", "must be an absolute path");
		Path file = Files.writeString(tmp.resolve("a-file"), "x");
		expectRefused(page, store, file.toString(), "is a file, not a folder");
		expectRefused(page, store, file.resolve("store").toString(), "Cannot create");
		set(budget, "50");
		UiTestSupport.screenshot(dialog.getShell(), "preference-page-refuses-budget");
		set(budget, "10240");

		Path storeDir = tmp.resolve("states");
		set(store, storeDir.toString());
		set(budget, "2048");
		set(level, "9");
		set(threads, "4");
		set(branches, "main, release/*, feature/*");
		set(derived, "target, node_modules");
		assertThat(page.isValid()).as(page.getErrorMessage()).isTrue();
		assertThat(page.getErrorMessage()).isNull();
		assertThat(page.performOk()).isTrue();

		IEclipsePreferences node = InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE);
		assertThat(node.get(BranchstatePreferences.STORE_LOCATION, null)).isEqualTo(storeDir.toString());
		assertThat(node.getInt(BranchstatePreferences.DISK_BUDGET_MB, -1)).isEqualTo(2048);
		assertThat(node.getInt(BranchstatePreferences.COMPRESSION_LEVEL, -1)).isEqualTo(9);
		assertThat(node.getInt(BranchstatePreferences.WORKER_THREADS, -1)).isEqualTo(4);
		assertThat(node.get(BranchstatePreferences.BRANCH_PATTERNS, null)).isEqualTo("main, release/*, feature/*");
		assertThat(node.get(BranchstatePreferences.DERIVED_FOLDERS, null)).isEqualTo("target, node_modules");
	}

	/**
	 * The remote store page: refuses an endpoint, bucket or public key core could not use; stores the store's settings
	 * in the instance scope and the credentials in secure storage (the secret encrypted), never in a preference.
	 */
	@Test
	void remoteStorePageKeepsCredentialsInSecureStorageOnly() throws Exception {
		dialog = PreferencesUtil.createPreferenceDialogOn(shell(), "dev.branchstate.ui.remotePreferencePage", null,
				null);
		dialog.setBlockOnOpen(false);
		dialog.open();
		PreferencePage page = (PreferencePage) dialog.getSelectedPage();
		Composite control = (Composite) page.getControl();
		Text endpoint = text(control, "Endpoint URL:");
		Text bucket = text(control, "Bucket:");
		Text key = text(control, "Publisher's public key:");
		Text accessKey = text(control, "Access key:");
		Text secretKey = text(control, "Secret key:");
		assertThat(text(control, "Key prefix:").getText()).isEqualTo("branchstate");
		assertThat(text(control, "Region:").getText()).isEqualTo("us-east-1");

		expectRefused(page, endpoint, "ftp://example.com", "must be an http:// or https:// URL");
		expectRefused(page, bucket, "Not_A_Bucket", "bucket name");
		expectRefused(page, key, "not a key", "Not an Ed25519 public key");

		String publicKey = java.util.Base64.getEncoder().encodeToString(
				java.security.KeyPairGenerator.getInstance("Ed25519").generateKeyPair().getPublic().getEncoded());
		set(endpoint, "https://s3.eu-central-1.amazonaws.com");
		set(bucket, "team-states");
		set(key, publicKey);
		accessKey.setText("AKIDEXAMPLE");
		secretKey.setText("s3cr3t-never-in-preferences");
		UiTestSupport.screenshot(dialog.getShell(), "remote-store-preference-page");
		assertThat(page.isValid()).as(page.getErrorMessage()).isTrue();
		assertThat(page.performOk()).isTrue();

		IEclipsePreferences node = InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE);
		assertThat(node.get(BranchstatePreferences.REMOTE_ENDPOINT, null))
				.isEqualTo("https://s3.eu-central-1.amazonaws.com");
		assertThat(node.get(BranchstatePreferences.REMOTE_BUCKET, null)).isEqualTo("team-states");
		assertThat(node.get(BranchstatePreferences.REMOTE_PUBLIC_KEY, null)).isEqualTo(publicKey);
		for (String k : node.keys()) {
			assertThat(node.get(k, "")).as("preference " + k).doesNotContain("s3cr3t");
		}
		org.eclipse.equinox.security.storage.ISecurePreferences secure = org.eclipse.equinox.security.storage.SecurePreferencesFactory
				.getDefault().node(BranchstatePreferences.SECURE_REMOTE_NODE);
		assertThat(secure.get(BranchstatePreferences.SECURE_ACCESS_KEY, null)).isEqualTo("AKIDEXAMPLE");
		assertThat(secure.isEncrypted(BranchstatePreferences.SECURE_SECRET_KEY)).isTrue();
		assertThat(secure.get(BranchstatePreferences.SECURE_SECRET_KEY, null)).isEqualTo("s3cr3t-never-in-preferences");
		secure.removeNode();
	}

	@Test
	void propertyPageOverridesPerProject() throws Exception {
		InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE).put(BranchstatePreferences.BRANCH_PATTERNS, "main");
		project = UiTestSupport.importProject("props", UiTestSupport.initRepository(tmp.resolve("props")).getRepository()
				.getWorkTree());

		dialog = PreferencesUtil.createPropertyDialogOn(shell(), project, BranchstateUI.PROPERTY_PAGE_ID, null, null);
		dialog.setBlockOnOpen(false);
		dialog.open();
		BranchstatePropertyPage page = (BranchstatePropertyPage) dialog.getSelectedPage();
		Composite control = (Composite) page.getControl();
		Text branches = text(control, "Branches to keep:");
		assertThat(branches.getText()).as("the workspace value shows through").isEqualTo("main");
		assertThat(branches.isEnabled()).as("not project-specific yet").isFalse();

		page.setProjectSpecific(true);
		assertThat(branches.isEnabled()).isTrue();
		expectRefused(page, branches, "", "at least one branch pattern");
		set(branches, "main, feature/*");
		Button autoSwitch = checkbox(control, "Save and restore states automatically when a branch is switched");
		autoSwitch.setSelection(false);
		autoSwitch.notifyListeners(SWT.Selection, new org.eclipse.swt.widgets.Event());
		assertThat(page.performOk()).isTrue();

		IEclipsePreferences node = new ProjectScope(project).getNode(BranchstatePreferences.NODE);
		assertThat(node.get(BranchstatePreferences.BRANCH_PATTERNS, null)).isEqualTo("main, feature/*");
		assertThat(node.get(BranchstatePreferences.AUTO_SWITCH, null)).isEqualTo("false");
		IScopeContext[] lookup = { new ProjectScope(project), InstanceScope.INSTANCE };
		assertThat(Platform.getPreferencesService().getString(BranchstatePreferences.NODE,
				BranchstatePreferences.BRANCH_PATTERNS, null, lookup)).isEqualTo("main, feature/*");
		assertThat(project.getFile(".settings/" + BranchstatePreferences.NODE + ".prefs").exists())
				.as("project settings are shared with the project").isTrue();

		// switching project-specific settings off removes the override
		page.setProjectSpecific(false);
		assertThat(page.performOk()).isTrue();
		assertThat(node.get(BranchstatePreferences.BRANCH_PATTERNS, null)).isNull();
		assertThat(Platform.getPreferencesService().getString(BranchstatePreferences.NODE,
				BranchstatePreferences.BRANCH_PATTERNS, null, lookup)).isEqualTo("main");
	}

	/** Types {@code value}, expects the page to refuse it with {@code message}, then puts the old value back. */
	private static void expectRefused(PreferencePage page, Text field, String value, String message) {
		String old = field.getText();
		set(field, value);
		assertThat(page.isValid()).as("'%s' is refused", value).isFalse();
		assertThat(page.getErrorMessage()).as("message for '%s'", value).contains(message);
		set(field, old);
		assertThat(page.isValid()).as("'%s' is accepted again", old).isTrue();
	}

	/** Types a value: sets the text, then the key release that makes the field editor validate it. */
	private static void set(Text field, String value) {
		field.setText(value);
		org.eclipse.swt.widgets.Event keyUp = new org.eclipse.swt.widgets.Event();
		keyUp.character = value.isEmpty() ? SWT.BS : value.charAt(value.length() - 1);
		field.notifyListeners(SWT.KeyUp, keyUp);
		UiTestSupport.processEvents();
	}

	private static Text text(Composite root, String label) {
		Text text = UiTestSupport.textAfterLabel(root, label);
		assertThat(text).as("text field '%s'", label).isNotNull();
		return text;
	}

	private static Button checkbox(Composite root, String label) {
		for (Control c : root.getChildren()) {
			if (c instanceof Button b && b.getText().replace("&", "").equals(label)) {
				return b;
			}
			if (c instanceof Composite composite) {
				Button b = checkbox(composite, label);
				if (b != null) {
					return b;
				}
			}
		}
		return null;
	}

	private static Shell shell() {
		return PlatformUI.getWorkbench().getActiveWorkbenchWindow().getShell();
	}
}
