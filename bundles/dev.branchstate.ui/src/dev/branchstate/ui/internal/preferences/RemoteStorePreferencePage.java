package dev.branchstate.ui.internal.preferences;

import org.eclipse.equinox.security.storage.ISecurePreferences;
import org.eclipse.equinox.security.storage.SecurePreferencesFactory;
import org.eclipse.equinox.security.storage.StorageException;
import org.eclipse.jface.preference.BooleanFieldEditor;
import org.eclipse.jface.preference.IntegerFieldEditor;
import org.eclipse.jface.preference.StringFieldEditor;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Display;
import org.eclipse.swt.widgets.Group;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Text;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.core.RemoteStoreSettings;
import dev.branchstate.ui.internal.HelpContexts;
import dev.branchstate.ui.internal.Messages;
import dev.branchstate.ui.internal.UiLog;

/**
 * Window › Preferences › Branchstate › Remote Store: the S3-compatible store that CI publishes states to, the public
 * key its manifests must be signed with, when a switch fetches, and what is prefetched after a {@code git fetch}. The access key and secret key go to Eclipse's
 * secure storage (the secret encrypted), never to the preferences. Test connection tests the values on the page,
 * saved or not, in a job ({@link TestConnectionJob}) and shows the outcome in plain words below the button.
 */
public class RemoteStorePreferencePage extends WorkspacePreferencePage {

	private Text accessKey;
	private Text secretKey;
	private boolean credentialsChanged;
	private StringFieldEditor endpoint;
	private StringFieldEditor bucket;
	private StringFieldEditor prefix;
	private StringFieldEditor region;
	private BooleanFieldEditor pathStyle;
	private StringFieldEditor publicKey;
	private IntegerFieldEditor timeout;
	private Button testButton;
	private Label testResult;

	public RemoteStorePreferencePage() {
		super(Messages.PrefRemote_description, HelpContexts.REMOTE_STORE_PAGE);
	}

	@Override
	protected void createFieldEditors() {
		Composite parent = getFieldEditorParent();
		endpoint = new PreferenceFields.CheckedStringFieldEditor(BranchstatePreferences.REMOTE_ENDPOINT,
				Messages.PrefRemote_endpoint, parent, Validation::remoteEndpoint);
		addField(endpoint);
		bucket = new PreferenceFields.CheckedStringFieldEditor(BranchstatePreferences.REMOTE_BUCKET,
				Messages.PrefRemote_bucket, parent, Validation::remoteBucket);
		addField(bucket);
		prefix = new PreferenceFields.CheckedStringFieldEditor(BranchstatePreferences.REMOTE_PREFIX,
				Messages.PrefRemote_prefix, parent, v -> null);
		addField(prefix);
		region = new PreferenceFields.CheckedStringFieldEditor(BranchstatePreferences.REMOTE_REGION,
				Messages.PrefRemote_region, parent, v -> null);
		addField(region);
		pathStyle = new BooleanFieldEditor(BranchstatePreferences.REMOTE_PATH_STYLE, Messages.PrefRemote_pathStyle,
				parent);
		addField(pathStyle);
		PreferenceFields.CheckedStringFieldEditor key = new PreferenceFields.CheckedStringFieldEditor(
				BranchstatePreferences.REMOTE_PUBLIC_KEY, Messages.PrefRemote_publicKey, parent,
				Validation::remotePublicKey);
		key.getTextControl(parent).setToolTipText(Messages.PrefRemote_publicKeyTip);
		addField(key);
		publicKey = key;
		addField(new BooleanFieldEditor(BranchstatePreferences.REMOTE_FETCH_ON_SWITCH,
				Messages.PrefRemote_fetchOnSwitch, parent));
		timeout = new IntegerFieldEditor(BranchstatePreferences.REMOTE_TIMEOUT_SECONDS,
				Messages.PrefRemote_timeout, parent, 4);
		timeout.setValidRange(1, 600);
		addField(timeout);
		IntegerFieldEditor deadline = new IntegerFieldEditor(BranchstatePreferences.REMOTE_FETCH_DEADLINE_SECONDS,
				Messages.PrefRemote_deadline, parent, 5);
		deadline.setValidRange(1, 3600);
		addField(deadline);
		createPrefetch(parent);
		createCredentials(parent);
		createTestConnection(parent);
	}

	/** Prefetch: on or off, which remote-tracking branches, and its budget. */
	private void createPrefetch(Composite parent) {
		addField(new BooleanFieldEditor(BranchstatePreferences.PREFETCH, Messages.PrefRemote_prefetch, parent));
		StringFieldEditor refs = new StringFieldEditor(BranchstatePreferences.PREFETCH_REFS,
				Messages.PrefRemote_prefetchRefs, parent);
		refs.getTextControl(parent).setToolTipText(Messages.PrefRemote_prefetchRefsTip);
		addField(refs);
		IntegerFieldEditor share = new IntegerFieldEditor(BranchstatePreferences.PREFETCH_BUDGET_PERCENT,
				Messages.PrefRemote_prefetchBudget, parent, 3);
		share.setValidRange(0, 100);
		addField(share);
		IntegerFieldEditor perDay = new IntegerFieldEditor(BranchstatePreferences.PREFETCH_MAX_MB_PER_DAY,
				Messages.PrefRemote_prefetchPerDay, parent, 7);
		perDay.setValidRange(0, 1_048_576);
		addField(perDay);
	}

	/** Test connection: the values as they are on the page, saved or not; the outcome in plain words below. */
	private void createTestConnection(Composite parent) {
		testButton = new Button(parent, SWT.PUSH);
		testButton.setText(Messages.PrefRemote_test);
		testButton.setLayoutData(new GridData(SWT.BEGINNING, SWT.TOP, false, false, 2, 1));
		testResult = new Label(parent, SWT.WRAP);
		GridData data = new GridData(SWT.FILL, SWT.TOP, true, false, 2, 1);
		data.widthHint = 400;
		// room for an answer of four lines from the start: the dialog sizes (and scrolls) the page when it opens
		data.heightHint = convertHeightInCharsToPixels(4);
		testResult.setLayoutData(data);
		testButton.addListener(SWT.Selection, e -> testConnection());
	}

	private void testConnection() {
		int seconds;
		try {
			seconds = timeout.getIntValue();
		} catch (NumberFormatException e) {
			seconds = 10;
		}
		RemoteStoreSettings entered = new RemoteStoreSettings(endpoint.getStringValue(), bucket.getStringValue(),
				prefix.getStringValue(), region.getStringValue(), pathStyle.getBooleanValue(),
				publicKey.getStringValue(), credentialsChanged ? accessKey.getText() : null,
				credentialsChanged ? secretKey.getText() : null, seconds);
		testButton.setEnabled(false);
		showTestResult(NLS.bind(Messages.PrefRemote_testing, endpoint.getStringValue()), false);
		Display display = testButton.getDisplay();
		new TestConnectionJob(entered, outcome -> display.asyncExec(() -> {
			if (!testButton.isDisposed()) {
				testButton.setEnabled(true);
				showTestResult(outcome.text(), outcome.problem());
			}
		})).schedule();
	}

	private void showTestResult(String text, boolean problem) {
		testResult.setText(text);
		testResult.setForeground(problem ? testResult.getDisplay().getSystemColor(SWT.COLOR_DARK_RED) : null);
		testResult.getParent().layout(true, true);
	}

	private void createCredentials(Composite parent) {
		Group group = new Group(parent, SWT.NONE);
		group.setText(Messages.PrefRemote_credentials);
		group.setLayout(new GridLayout(2, false));
		group.setLayoutData(new GridData(SWT.FILL, SWT.TOP, true, false, 2, 1));
		Label hint = new Label(group, SWT.WRAP);
		hint.setText(Messages.PrefRemote_credentialsHint);
		GridData hintData = new GridData(SWT.FILL, SWT.TOP, true, false, 2, 1);
		hintData.widthHint = 400;
		hint.setLayoutData(hintData);
		new Label(group, SWT.NONE).setText(Messages.PrefRemote_accessKey);
		accessKey = new Text(group, SWT.BORDER | SWT.SINGLE);
		accessKey.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
		new Label(group, SWT.NONE).setText(Messages.PrefRemote_secretKey);
		secretKey = new Text(group, SWT.BORDER | SWT.SINGLE | SWT.PASSWORD);
		secretKey.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
		try {
			ISecurePreferences node = node();
			accessKey.setText(node.get(BranchstatePreferences.SECURE_ACCESS_KEY, "")); //$NON-NLS-1$
			// the secret is not read back (that could prompt for the master password): a placeholder says it is set
			secretKey.setMessage(java.util.List.of(node.keys()).contains(BranchstatePreferences.SECURE_SECRET_KEY) ? Messages.PrefRemote_secretKeySet : ""); //$NON-NLS-1$
		} catch (StorageException | RuntimeException e) {
			UiLog.warning(Messages.PrefRemote_storageUnavailable, e);
		}
		accessKey.addModifyListener(e -> credentialsChanged = true);
		secretKey.addModifyListener(e -> credentialsChanged = true);
	}

	private static ISecurePreferences node() {
		return SecurePreferencesFactory.getDefault().node(BranchstatePreferences.SECURE_REMOTE_NODE);
	}

	@Override
	public boolean performOk() {
		if (!super.performOk()) {
			return false;
		}
		if (credentialsChanged) {
			try {
				ISecurePreferences node = node();
				String access = accessKey.getText().trim();
				if (access.isEmpty()) {
					node.removeNode();
				} else {
					node.put(BranchstatePreferences.SECURE_ACCESS_KEY, access, false);
					if (!secretKey.getText().isEmpty()) {
						node.put(BranchstatePreferences.SECURE_SECRET_KEY, secretKey.getText(), true);
					}
				}
				SecurePreferencesFactory.getDefault().flush();
				credentialsChanged = false;
			} catch (StorageException | java.io.IOException | RuntimeException e) {
				setErrorMessage(Messages.PrefRemote_storageUnavailable + ' ' + e.getMessage());
				return false;
			}
		}
		return true;
	}

	@Override
	protected void performDefaults() {
		super.performDefaults();
		accessKey.setText(""); //$NON-NLS-1$
		secretKey.setText(""); //$NON-NLS-1$
	}
}
