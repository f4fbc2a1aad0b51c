package dev.branchstate.ui.internal.preferences;

import java.util.function.Function;

import org.eclipse.jface.preference.BooleanFieldEditor;
import org.eclipse.jface.preference.DirectoryFieldEditor;
import org.eclipse.jface.preference.FieldEditor;
import org.eclipse.jface.preference.IntegerFieldEditor;
import org.eclipse.jface.preference.StringFieldEditor;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.widgets.Composite;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.ui.internal.Messages;

/** The field editors of the Branchstate preferences, shared by the preference page and the property page. */
final class PreferenceFields {

	private PreferenceFields() {
	}

	static FieldEditor autoSwitch(Composite parent) {
		return new BooleanFieldEditor(BranchstatePreferences.AUTO_SWITCH, Messages.Pref_autoSwitch, parent);
	}

	static FieldEditor saveAhead(Composite parent) {
		BooleanFieldEditor editor = new BooleanFieldEditor(BranchstatePreferences.SAVE_AHEAD, Messages.Pref_saveAhead,
				parent);
		editor.getDescriptionControl(parent).setToolTipText(Messages.Pref_saveAheadTip);
		return editor;
	}

	static FieldEditor branchPatterns(Composite parent) {
		StringFieldEditor editor = new CheckedStringFieldEditor(BranchstatePreferences.BRANCH_PATTERNS,
				Messages.Pref_branchPatterns, parent, Validation::branchPatterns);
		editor.getTextControl(parent).setToolTipText(Messages.Pref_branchPatternsTip);
		return editor;
	}

	static FieldEditor derivedFolders(Composite parent) {
		StringFieldEditor editor = new CheckedStringFieldEditor(BranchstatePreferences.DERIVED_FOLDERS,
				Messages.Pref_derivedFolders, parent, Validation::derivedFolders);
		editor.getTextControl(parent).setToolTipText(Messages.Pref_derivedFoldersTip);
		return editor;
	}

	static FieldEditor storeLocation(Composite parent) {
		StoreLocationFieldEditor editor = new StoreLocationFieldEditor(parent);
		editor.getTextControl(parent).setToolTipText(Messages.Pref_storeLocationTip);
		editor.getTextControl(parent).setMessage(Messages.Pref_storeLocationHint);
		return editor;
	}

	static FieldEditor diskBudget(Composite parent) {
		IntegerFieldEditor editor = new IntegerFieldEditor(BranchstatePreferences.DISK_BUDGET_MB,
				Messages.Pref_diskBudget, parent, 9);
		editor.setValidRange(Validation.MIN_DISK_BUDGET_MB, Integer.MAX_VALUE);
		editor.setErrorMessage(NLS.bind(Messages.Pref_diskBudgetTooSmall, Validation.MIN_DISK_BUDGET_MB));
		return editor;
	}

	static FieldEditor compressionLevel(Composite parent) {
		IntegerFieldEditor editor = new IntegerFieldEditor(BranchstatePreferences.COMPRESSION_LEVEL,
				Messages.Pref_compressionLevel, parent, 2);
		editor.setValidRange(Validation.MIN_COMPRESSION_LEVEL, Validation.MAX_COMPRESSION_LEVEL);
		editor.setErrorMessage(NLS.bind(Messages.Pref_compressionLevelRange, Validation.MIN_COMPRESSION_LEVEL,
				Validation.MAX_COMPRESSION_LEVEL));
		editor.getTextControl(parent).setToolTipText(Messages.Pref_compressionLevelTip);
		return editor;
	}

	static FieldEditor workerThreads(Composite parent) {
		IntegerFieldEditor editor = new IntegerFieldEditor(BranchstatePreferences.WORKER_THREADS,
				Messages.Pref_workerThreads, parent, 3);
		editor.setValidRange(0, Validation.MAX_WORKER_THREADS);
		editor.setErrorMessage(NLS.bind(Messages.Pref_workerThreadsRange, Validation.MAX_WORKER_THREADS));
		editor.getTextControl(parent).setToolTipText(Messages.Pref_workerThreadsTip);
		return editor;
	}

	/** A text field whose value is checked by a function answering null or the message to show. */
	static final class CheckedStringFieldEditor extends StringFieldEditor {

		private final Function<String, String> check;

		CheckedStringFieldEditor(String key, String label, Composite parent, Function<String, String> check) {
			super(key, label, StringFieldEditor.UNLIMITED, StringFieldEditor.VALIDATE_ON_KEY_STROKE, parent);
			this.check = check;
		}

		@Override
		protected boolean doCheckState() {
			String message = check.apply(getStringValue());
			setErrorMessage(message);
			return message == null;
		}
	}

	/** The folder of the state store: empty for the default, else a folder that exists or can be made, writable. */
	static final class StoreLocationFieldEditor extends DirectoryFieldEditor {

		StoreLocationFieldEditor(Composite parent) {
			super(BranchstatePreferences.STORE_LOCATION, Messages.Pref_storeLocation, parent);
			setEmptyStringAllowed(true);
			// DirectoryFieldEditor validates on focus lost only: say at once that a typed path cannot be used
			getTextControl(parent).addModifyListener(e -> valueChanged());
		}

		@Override
		protected boolean doCheckState() {
			String message = Validation.storeLocation(getStringValue());
			setErrorMessage(message);
			return message == null;
		}

	}
}
