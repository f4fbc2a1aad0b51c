package dev.branchstate.ui.internal.preferences;

import java.util.ArrayList;
import java.util.List;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.ProjectScope;
import org.eclipse.core.runtime.Adapters;
import org.eclipse.core.runtime.IAdaptable;
import org.eclipse.core.runtime.preferences.IEclipsePreferences;
import org.eclipse.jface.layout.GridDataFactory;
import org.eclipse.jface.layout.GridLayoutFactory;
import org.eclipse.jface.preference.FieldEditor;
import org.eclipse.jface.preference.FieldEditorPreferencePage;
import org.eclipse.jface.preference.IPreferenceStore;
import org.eclipse.jface.preference.PreferenceStore;
import org.eclipse.swt.SWT;
import org.eclipse.swt.events.SelectionListener;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Link;
import org.eclipse.ui.IWorkbenchPropertyPage;
import org.eclipse.ui.dialogs.PreferencesUtil;
import org.osgi.service.prefs.BackingStoreException;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.ui.BranchstateUI;
import dev.branchstate.ui.internal.HelpContexts;
import dev.branchstate.ui.internal.Messages;
import dev.branchstate.ui.internal.UiLog;

/**
 * Project › Properties › Branchstate: project-specific values (project scope of node
 * {@link BranchstatePreferences#NODE}) that override the workspace for the preferences core reads per project:
 * automatic switching, the branches kept, the extra derived folders. The store location, disk budget, compression
 * level and worker threads belong to the one state store of the workspace (one archive holds all the projects of a
 * repository) and are set on the preference page only.
 * <p>
 * The page edits an in-memory store whose defaults are the workspace values; OK writes every key to the project
 * node when project-specific settings are on (an explicit override, even of a value equal to the workspace's) and
 * removes them all when off.
 */
public class BranchstatePropertyPage extends FieldEditorPreferencePage implements IWorkbenchPropertyPage {

	static final String[] PROJECT_KEYS = { BranchstatePreferences.AUTO_SWITCH,
			BranchstatePreferences.BRANCH_PATTERNS, BranchstatePreferences.DERIVED_FOLDERS };

	private IAdaptable element;
	private final List<FieldEditor> editors = new ArrayList<>();
	private Composite fieldParent;
	private Button projectSpecific;

	public BranchstatePropertyPage() {
		super(GRID);
		setDescription(Messages.Prop_description);
	}

	@Override
	public IAdaptable getElement() {
		return element;
	}

	@Override
	public void setElement(IAdaptable element) {
		this.element = element;
	}

	private IProject project() {
		return Adapters.adapt(element, IProject.class);
	}

	private IEclipsePreferences projectNode() {
		return PreferenceDefaults.node(new ProjectScope(project()));
	}

	@Override
	protected IPreferenceStore doGetPreferenceStore() {
		PreferenceStore store = new PreferenceStore();
		IEclipsePreferences node = projectNode();
		for (String key : PROJECT_KEYS) {
			store.setDefault(key, PreferenceDefaults.workspace(key));
			String value = node.get(key, null);
			if (value != null) {
				store.setValue(key, value);
			}
		}
		return store;
	}

	@Override
	protected Control createContents(Composite parent) {
		Composite composite = new Composite(parent, SWT.NONE);
		GridLayoutFactory.fillDefaults().numColumns(2).applyTo(composite);

		projectSpecific = new Button(composite, SWT.CHECK);
		projectSpecific.setText(Messages.Prop_projectSpecific);
		projectSpecific.setSelection(hasProjectValues());
		projectSpecific.addSelectionListener(SelectionListener.widgetSelectedAdapter(e -> updateEnablement()));
		Link workspace = new Link(composite, SWT.NONE);
		workspace.setText(Messages.Prop_configureWorkspace);
		GridDataFactory.swtDefaults().align(SWT.END, SWT.CENTER).grab(true, false).applyTo(workspace);
		workspace.addSelectionListener(SelectionListener.widgetSelectedAdapter(e -> PreferencesUtil
				.createPreferenceDialogOn(getShell(), BranchstateUI.PREFERENCE_PAGE_ID, null, null).open()));
		Label separator = new Label(composite, SWT.SEPARATOR | SWT.HORIZONTAL);
		GridDataFactory.fillDefaults().span(2, 1).grab(true, false).applyTo(separator);

		Control fields = super.createContents(composite);
		GridDataFactory.fillDefaults().span(2, 1).grab(true, true).applyTo(fields);

		Label note = new Label(composite, SWT.WRAP);
		note.setText(Messages.Prop_workspaceOnlyNote);
		GridDataFactory.fillDefaults().span(2, 1).grab(true, false).hint(400, SWT.DEFAULT).indent(0, 8).applyTo(note);
		updateEnablement();
		HelpContexts.set(composite, HelpContexts.PROPERTY_PAGE);
		return composite;
	}

	@Override
	protected void createFieldEditors() {
		fieldParent = getFieldEditorParent();
		addField(PreferenceFields.autoSwitch(fieldParent));
		addField(PreferenceFields.branchPatterns(fieldParent));
		addField(PreferenceFields.derivedFolders(fieldParent));
	}

	@Override
	protected void addField(FieldEditor editor) {
		editors.add(editor);
		super.addField(editor);
	}

	private boolean hasProjectValues() {
		IEclipsePreferences node = projectNode();
		for (String key : PROJECT_KEYS) {
			if (node.get(key, null) != null) {
				return true;
			}
		}
		return false;
	}

	private void updateEnablement() {
		boolean enabled = projectSpecific.getSelection();
		for (FieldEditor editor : editors) {
			editor.setEnabled(enabled, fieldParent);
		}
	}

	/** Ticks or unticks "Enable project-specific settings" (tests, and the link from elsewhere). */
	public void setProjectSpecific(boolean enabled) {
		projectSpecific.setSelection(enabled);
		updateEnablement();
	}

	@Override
	protected void performDefaults() {
		super.performDefaults(); // the in-memory store's defaults are the workspace values
		setProjectSpecific(false);
	}

	@Override
	public boolean performOk() {
		IEclipsePreferences node = projectNode();
		if (projectSpecific.getSelection()) {
			for (FieldEditor editor : editors) {
				editor.store();
			}
			IPreferenceStore store = getPreferenceStore();
			for (String key : PROJECT_KEYS) {
				node.put(key, store.getString(key));
			}
		} else {
			for (String key : PROJECT_KEYS) {
				node.remove(key);
			}
		}
		try {
			node.flush();
		} catch (BackingStoreException e) {
			UiLog.error(Messages.Prop_saveFailed, e);
			setErrorMessage(Messages.Prop_saveFailed);
			return false;
		}
		return true;
	}
}
