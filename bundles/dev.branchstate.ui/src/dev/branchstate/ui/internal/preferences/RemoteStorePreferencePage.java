package dev.branchstate.ui.internal.preferences;

import org.eclipse.equinox.security.storage.ISecurePreferences;
import org.eclipse.equinox.security.storage.SecurePreferencesFactory;
import org.eclipse.equinox.security.storage.StorageException;
import org.eclipse.jface.preference.BooleanFieldEditor;
import org.eclipse.jface.preference.IntegerFieldEditor;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Group;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Text;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.ui.internal.Messages;
import dev.branchstate.ui.internal.UiLog;

/**
 * Window › Preferences › Branchstate › Remote Store: the S3-compatible store that CI publishes states to, the public
 * key its manifests must be signed with, and when a switch fetches. The access key and secret key go to Eclipse's
 * secure storage (the secret encrypted), never to the preferences.
 */
public class RemoteStorePreferencePage extends WorkspacePreferencePage {

	private Text accessKey;
	private Text secretKey;
	private boolean credentialsChanged;

	public RemoteStorePreferencePage() {
		super(Messages.PrefRemote_description);
	}

	@Override
	protected void createFieldEditors() {
		Composite parent = getFieldEditorParent();
		addField(new PreferenceFields.CheckedStringFieldEditor(BranchstatePreferences.REMOTE_ENDPOINT,
				Messages.PrefRemote_endpoint, parent, Validation::remoteEndpoint));
		addField(new PreferenceFields.CheckedStringFieldEditor(BranchstatePreferences.REMOTE_BUCKET,
				Messages.PrefRemote_bucket, parent, Validation::remoteBucket));
		addField(new PreferenceFields.CheckedStringFieldEditor(BranchstatePreferences.REMOTE_PREFIX,
				Messages.PrefRemote_prefix, parent, v -> null));
		addField(new PreferenceFields.CheckedStringFieldEditor(BranchstatePreferences.REMOTE_REGION,
				Messages.PrefRemote_region, parent, v -> null));
		addField(new BooleanFieldEditor(BranchstatePreferences.REMOTE_PATH_STYLE, Messages.PrefRemote_pathStyle,
				parent));
		PreferenceFields.CheckedStringFieldEditor key = new PreferenceFields.CheckedStringFieldEditor(
				BranchstatePreferences.REMOTE_PUBLIC_KEY, Messages.PrefRemote_publicKey, parent,
				Validation::remotePublicKey);
		key.getTextControl(parent).setToolTipText(Messages.PrefRemote_publicKeyTip);
		addField(key);
		addField(new BooleanFieldEditor(BranchstatePreferences.REMOTE_FETCH_ON_SWITCH,
				Messages.PrefRemote_fetchOnSwitch, parent));
		IntegerFieldEditor timeout = new IntegerFieldEditor(BranchstatePreferences.REMOTE_TIMEOUT_SECONDS,
				Messages.PrefRemote_timeout, parent, 4);
		timeout.setValidRange(1, 600);
		addField(timeout);
		IntegerFieldEditor deadline = new IntegerFieldEditor(BranchstatePreferences.REMOTE_FETCH_DEADLINE_SECONDS,
				Messages.PrefRemote_deadline, parent, 5);
		deadline.setValidRange(1, 3600);
		addField(deadline);
		createCredentials(parent);
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
