package dev.branchstate.ui.internal.handlers;

import java.io.File;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.eclipse.jface.dialogs.IDialogConstants;
import org.eclipse.jface.dialogs.TitleAreaDialog;
import org.eclipse.jface.layout.GridDataFactory;
import org.eclipse.jface.layout.GridLayoutFactory;
import org.eclipse.jface.layout.TableColumnLayout;
import org.eclipse.jface.viewers.ArrayContentProvider;
import org.eclipse.jface.viewers.ColumnLabelProvider;
import org.eclipse.jface.viewers.ColumnWeightData;
import org.eclipse.jface.viewers.IStructuredSelection;
import org.eclipse.jface.viewers.StructuredSelection;
import org.eclipse.jface.viewers.TableViewer;
import org.eclipse.jface.viewers.TableViewerColumn;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.swt.widgets.Table;

import dev.branchstate.core.StateInfo;
import dev.branchstate.ui.internal.Formats;
import dev.branchstate.ui.internal.GitInfo;
import dev.branchstate.ui.internal.Messages;

/** Lists the stored states of one repository; the state of HEAD's commit is preselected. */
final class StateSelectionDialog extends TitleAreaDialog {

	private final File gitDir;
	private final String repositoryName;
	private final List<StateInfo> states;
	private TableViewer viewer;
	private StateInfo selected;

	StateSelectionDialog(Shell parent, File gitDir, String repositoryName, List<StateInfo> states) {
		super(parent);
		this.gitDir = gitDir;
		this.repositoryName = repositoryName;
		this.states = states;
	}

	StateInfo selected() {
		return selected;
	}

	@Override
	protected void configureShell(Shell shell) {
		super.configureShell(shell);
		shell.setText(Messages.Command_restoreTitle);
	}

	@Override
	protected boolean isResizable() {
		return true;
	}

	@Override
	protected Control createDialogArea(Composite parent) {
		Composite area = (Composite) super.createDialogArea(parent);
		setTitle(NLS.bind(Messages.Dialog_restoreTitle, repositoryName));
		setMessage(Messages.Dialog_restoreMessage);

		Composite content = new Composite(area, SWT.NONE);
		GridLayoutFactory.swtDefaults().margins(10, 10).applyTo(content);
		GridDataFactory.fillDefaults().grab(true, true).applyTo(content);
		Composite tableParent = new Composite(content, SWT.NONE);
		GridDataFactory.fillDefaults().grab(true, true).hint(720, 240).applyTo(tableParent);
		TableColumnLayout layout = new TableColumnLayout();
		tableParent.setLayout(layout);
		viewer = new TableViewer(tableParent, SWT.SINGLE | SWT.FULL_SELECTION | SWT.BORDER | SWT.V_SCROLL);
		Table table = viewer.getTable();
		table.setHeaderVisible(true);
		table.setLinesVisible(true);

		Map<String, String> messages = messages();
		String head = headCommit();
		column(layout, Messages.View_columnBranches, 20, s -> {
			String branches = s.branches().isEmpty() ? Messages.View_detached : String.join(", ", s.branches()); //$NON-NLS-1$
			return s.commitId().equals(head) ? NLS.bind(Messages.View_headMarker, branches) : branches;
		});
		column(layout, Messages.View_columnCommit, 8, s -> Formats.shortId(s.commitId()));
		column(layout, Messages.View_columnMessage, 36,
				s -> Objects.requireNonNullElse(messages.get(s.commitId()), Messages.View_commitMissing));
		column(layout, Messages.View_columnCreated, 16, s -> Formats.dateTime(s.created()));
		column(layout, Messages.View_columnSize, 10, s -> Formats.size(s.size()));

		viewer.setContentProvider(ArrayContentProvider.getInstance());
		viewer.setInput(states);
		viewer.addSelectionChangedListener(e -> updateOk());
		viewer.addDoubleClickListener(e -> {
			if (getButton(IDialogConstants.OK_ID).isEnabled()) {
				okPressed();
			}
		});
		StateInfo preselect = states.stream().filter(s -> s.commitId().equals(head)).findFirst().orElse(states.get(0));
		if (preselect != null) {
			viewer.setSelection(new StructuredSelection(preselect), true);
		}
		return area;
	}

	@Override
	protected void createButtonsForButtonBar(Composite parent) {
		createButton(parent, IDialogConstants.OK_ID, Messages.Dialog_restoreButton, true);
		createButton(parent, IDialogConstants.CANCEL_ID, IDialogConstants.CANCEL_LABEL, false);
		updateOk();
	}

	@Override
	protected void okPressed() {
		selected = (StateInfo) viewer.getStructuredSelection().getFirstElement();
		super.okPressed();
	}

	private void updateOk() {
		if (getButton(IDialogConstants.OK_ID) != null && viewer != null) {
			IStructuredSelection selection = viewer.getStructuredSelection();
			getButton(IDialogConstants.OK_ID).setEnabled(!selection.isEmpty());
		}
	}

	/** @return the commit HEAD is at, or null when it cannot be read */
	private String headCommit() {
		try {
			return GitInfo.head(gitDir).commitId();
		} catch (IOException e) {
			return null;
		}
	}

	private Map<String, String> messages() {
		try {
			return GitInfo.shortMessages(gitDir, states.stream().map(StateInfo::commitId).toList());
		} catch (IOException e) {
			return Map.of();
		}
	}

	private void column(TableColumnLayout layout, String title, int weight,
			java.util.function.Function<StateInfo, String> text) {
		TableViewerColumn column = new TableViewerColumn(viewer, SWT.NONE);
		column.getColumn().setText(title);
		layout.setColumnData(column.getColumn(), new ColumnWeightData(weight, 40));
		column.setLabelProvider(new ColumnLabelProvider() {
			@Override
			public String getText(Object element) {
				return text.apply((StateInfo) element);
			}
		});
	}
}
