package dev.branchstate.ui.internal.views;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.MultiStatus;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.jface.action.Action;
import org.eclipse.jface.action.IMenuManager;
import org.eclipse.jface.action.IToolBarManager;
import org.eclipse.jface.action.MenuManager;
import org.eclipse.jface.action.Separator;
import org.eclipse.jface.dialogs.MessageDialog;
import org.eclipse.jface.layout.GridDataFactory;
import org.eclipse.jface.layout.GridLayoutFactory;
import org.eclipse.jface.resource.ImageDescriptor;
import org.eclipse.jface.resource.JFaceResources;
import org.eclipse.jface.resource.LocalResourceManager;
import org.eclipse.jface.resource.ResourceLocator;
import org.eclipse.jface.viewers.ColumnLabelProvider;
import org.eclipse.jface.viewers.ColumnViewerToolTipSupport;
import org.eclipse.jface.viewers.ITreeContentProvider;
import org.eclipse.jface.viewers.IStructuredSelection;
import org.eclipse.jface.viewers.TreeViewer;
import org.eclipse.jface.viewers.TreeViewerColumn;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.custom.CLabel;
import org.eclipse.swt.dnd.Clipboard;
import org.eclipse.swt.dnd.TextTransfer;
import org.eclipse.swt.dnd.Transfer;
import org.eclipse.swt.graphics.Font;
import org.eclipse.swt.graphics.Image;
import org.eclipse.swt.program.Program;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Display;
import org.eclipse.swt.widgets.Tree;
import org.eclipse.ui.ISharedImages;
import org.eclipse.ui.PlatformUI;
import org.eclipse.ui.part.ViewPart;

import dev.branchstate.core.IStateService;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.prefetch.Prefetcher;
import dev.branchstate.ui.BranchstateUI;
import dev.branchstate.ui.internal.Formats;
import dev.branchstate.ui.internal.HelpContexts;
import dev.branchstate.ui.internal.Messages;
import dev.branchstate.ui.internal.StateEventNotifier;
import dev.branchstate.ui.internal.StateServices;
import dev.branchstate.ui.internal.handlers.RestoreStateJob;

/**
 * The "Branch States" view. A tree: repositories, and under each its stored states (newest first); the state at
 * HEAD's commit is bold and marked. A line above the tree tells the last thing that happened (restored, skipped and
 * why, failed and why) or that the service is not there.
 * <p>
 * The content is built by a system job ({@link StatesModel}) and set on the display thread; state events and the
 * service coming or going schedule that job again, so the view follows saves, restores and deletions live.
 */
public final class BranchStatesView extends ViewPart {

	private static final String PLUGIN = "dev.branchstate.ui"; //$NON-NLS-1$

	/** How long a restore or failure stays above the tree when routine events follow. */
	private static final Duration OUTCOME_SHOWN_FOR = Duration.ofMinutes(1);

	private final StateServices.Subscriber subscriber = new StateServices.Subscriber() {
		@Override
		public void stateChanged(StateEvent event) {
			asyncExec(() -> {
				showEvent(event);
				scheduleLoad();
			});
		}

		@Override
		public void availabilityChanged() {
			asyncExec(() -> {
				lastEvent = null; // it came from the service that was shown until now
				scheduleLoad();
			});
		}
	};

	private final Job loader = new Job(Messages.View_loadJob) {
		@Override
		protected IStatus run(IProgressMonitor monitor) {
			Optional<IStateService> service = StateServices.get();
			try {
				List<RepositoryNode> nodes = service.isPresent() ? StatesModel.load(service.get(), monitor) : null;
				long disk = service.isPresent() ? service.get().diskUsage() : 0;
				Optional<Prefetcher.BudgetUse> prefetch = PrefetchedStates.budgetUse();
				asyncExec(() -> setInput(nodes, disk, prefetch.orElse(null)));
				return Status.OK_STATUS;
			} catch (OperationCanceledException e) {
				return Status.CANCEL_STATUS;
			}
		}

		@Override
		public boolean belongsTo(Object family) {
			return family == BranchstateUI.JOB_FAMILY;
		}
	};

	private Display display;
	private LocalResourceManager resources;
	private CLabel banner;
	private TreeViewer viewer;
	private Font bold;
	private List<RepositoryNode> input = List.of();
	/** What the states take on disk (shared files once), read with them. */
	private long diskUsage;
	/** What the prefetch uses of its budget, read with the states; {@code null} without a prefetcher. */
	private Prefetcher.BudgetUse prefetchUse;
	private boolean serviceMissing;
	private StateEvent lastEvent;
	private Instant lastEventTime;

	private Action restoreAction;
	private Action deleteAction;
	private Action copyPathAction;
	private Action openFolderAction;
	private Action refreshAction;

	@Override
	public void createPartControl(Composite parent) {
		display = parent.getDisplay();
		resources = new LocalResourceManager(JFaceResources.getResources(), parent);
		bold = resources.create(JFaceResources.getFontDescriptor(JFaceResources.DIALOG_FONT).setStyle(SWT.BOLD));
		GridLayoutFactory.fillDefaults().spacing(0, 0).applyTo(parent);

		banner = new CLabel(parent, SWT.NONE);
		GridDataFactory.fillDefaults().grab(true, false).applyTo(banner);
		banner.setMargins(6, 3, 6, 3);

		viewer = new TreeViewer(parent, SWT.MULTI | SWT.FULL_SELECTION | SWT.V_SCROLL | SWT.H_SCROLL);
		Tree tree = viewer.getTree();
		GridDataFactory.fillDefaults().grab(true, true).applyTo(tree);
		tree.setHeaderVisible(true);
		tree.setLinesVisible(true);
		viewer.setUseHashlookup(true);
		viewer.setContentProvider(new ContentProvider());
		ColumnViewerToolTipSupport.enableFor(viewer);
		createColumns();
		viewer.setInput(input);

		createActions();
		contributeToActionBars();
		viewer.addSelectionChangedListener(e -> updateActions());
		viewer.addDoubleClickListener(e -> {
			if (viewer.getStructuredSelection().getFirstElement() instanceof RepositoryNode node) {
				viewer.setExpandedState(node, !viewer.getExpandedState(node));
			}
		});
		getSite().setSelectionProvider(viewer);
		HelpContexts.set(parent, HelpContexts.BRANCH_STATES_VIEW);

		StateServices.subscribe(subscriber);
		updateBanner();
		scheduleLoad();
	}

	@Override
	public void setFocus() {
		viewer.getControl().setFocus();
	}

	@Override
	public void dispose() {
		StateServices.unsubscribe(subscriber);
		loader.cancel();
		super.dispose();
	}

	/** @return the repositories shown now (display thread) */
	public List<RepositoryNode> input() {
		return input;
	}

	/** @return the text of the line above the tree (display thread) */
	public String bannerText() {
		return banner.getText();
	}

	/** @return the tree (display thread), for tests and screenshots */
	public TreeViewer viewer() {
		return viewer;
	}

	/** Reloads the states in the background; the tree changes when they are read. */
	public void scheduleLoad() {
		loader.schedule(50);
	}

	private void setInput(List<RepositoryNode> nodes, long disk, Prefetcher.BudgetUse prefetch) {
		if (viewer == null || viewer.getControl().isDisposed()) {
			return;
		}
		serviceMissing = nodes == null;
		input = nodes == null ? List.of() : nodes;
		diskUsage = disk;
		prefetchUse = prefetch;
		Object[] expanded = viewer.getExpandedElements();
		viewer.getTree().setRedraw(false);
		try {
			viewer.setInput(input);
			if (expanded.length == 0) {
				viewer.expandAll();
			} else {
				// records compare by value, so the same repository is the same element after a reload
				for (RepositoryNode node : input) {
					viewer.setExpandedState(node, true);
				}
			}
		} finally {
			viewer.getTree().setRedraw(true);
		}
		updateBanner();
		updateActions();
	}

	/**
	 * Shows an event above the tree, except a routine one (saved, skipped) that follows within a minute a restore or
	 * failure of the same repository: the save that belongs to a switch must not hide what the switch did.
	 */
	private void showEvent(StateEvent event) {
		Instant now = Instant.now();
		if (lastEvent != null && outcome(lastEvent) && !outcome(event)
				&& Objects.equals(lastEvent.gitDir(), event.gitDir())
				&& Duration.between(lastEventTime, now).compareTo(OUTCOME_SHOWN_FOR) < 0) {
			return;
		}
		lastEvent = event;
		lastEventTime = now;
		updateBanner();
	}

	private static boolean outcome(StateEvent event) {
		return event.kind() == StateEvent.Kind.RESTORED || event.kind() == StateEvent.Kind.FAILED;
	}

	private void updateBanner() {
		if (banner == null || banner.isDisposed()) {
			return;
		}
		ISharedImages shared = PlatformUI.getWorkbench().getSharedImages();
		if (serviceMissing || StateServices.get().isEmpty()) {
			banner.setImage(shared.getImage(ISharedImages.IMG_OBJS_ERROR_TSK));
			banner.setText(Messages.Service_notAvailable);
		} else if (lastEvent != null) {
			StateEvent e = lastEvent;
			String text = StateEventNotifier.describe(e);
			boolean warning = e.kind() == StateEvent.Kind.FAILED || StateEventNotifier.partial(e);
			banner.setImage(shared.getImage(warning ? ISharedImages.IMG_OBJS_WARN_TSK : ISharedImages.IMG_OBJS_INFO_TSK));
			banner.setText(text);
		} else if (input.isEmpty()) {
			banner.setImage(shared.getImage(ISharedImages.IMG_OBJS_INFO_TSK));
			banner.setText(Messages.View_noRepositories);
		} else {
			long count = input.stream().mapToLong(n -> n.states().size()).sum();
			banner.setImage(null);
			String repositories = Formats.count(input.size(), Messages.View_oneRepository, Messages.View_repositories);
			String summary = NLS.bind(Messages.View_summary,
					new Object[] { states(count), repositories, Formats.size(diskUsage) });
			Prefetcher.BudgetUse use = prefetchUse;
			// prefetched states are told while they are kept; what was downloaded today while the prefetch can run
			if (use != null && (use.states() > 0 || use.active() && use.bytesToday() > 0)) {
				summary += NLS.bind(Messages.View_prefetchSummary,
						new Object[] { states(use.states()), Formats.size(use.bytes()),
								Formats.size(use.shareBytes()), Formats.size(use.bytesToday()),
								Formats.size(use.maxBytesPerDay()) });
			}
			banner.setText(summary);
		}
		banner.getParent().layout(true);
	}

	private static String states(long n) {
		return Formats.count(n, Messages.View_oneState, Messages.View_states);
	}

	// --- columns ---------------------------------------------------------------------------------------------------

	private void createColumns() {
		column(Messages.View_columnBranches, 200, SWT.LEFT, this::nameText, this::image);
		column(Messages.View_columnCommit, 70, SWT.LEFT, row -> Formats.shortId(row.state().commitId()), null);
		column(Messages.View_columnMessage, 280, SWT.LEFT,
				row -> row.message() == null ? Messages.View_commitMissing : row.message(), null);
		column(Messages.View_columnStored, 110, SWT.LEFT, BranchStatesView::stored, null);
		column(Messages.View_columnCreated, 145, SWT.LEFT, local(row -> Formats.dateTime(row.state().created())), null);
		column(Messages.View_columnLastUsed, 145, SWT.LEFT, local(row -> Formats.dateTime(row.state().lastUsed())),
				null);
		column(Messages.View_columnSize, 75, SWT.RIGHT, local(row -> Formats.size(row.state().size())), null);
		column(Messages.View_columnRatio, 60, SWT.RIGHT,
				local(row -> Formats.ratio(row.state().uncompressedSize(), row.state().size())), null);
		column(Messages.View_columnContributors, 190, SWT.LEFT, local(row -> contributors(row.state())), null);
	}

	private static String stored(StateRow row) {
		String where = switch (row.where()) {
		case LOCAL -> Messages.View_storedLocal;
		case REMOTE -> Messages.View_storedRemote;
		case BOTH -> Messages.View_storedBoth;
		};
		return row.prefetched() ? NLS.bind(Messages.View_storedPrefetched, where) : where;
	}

	/** @return the text of a local state's figure; nothing for a state only in the remote store */
	private static Function<StateRow, String> local(Function<StateRow, String> text) {
		return row -> row.local() ? text.apply(row) : ""; //$NON-NLS-1$
	}

	private String nameText(StateRow row) {
		// a state saved here names its branches (none: saved at a detached HEAD); one fetched names none
		String unnamed = row.prefetched() || row.where() != StateRow.Where.LOCAL ? Messages.View_fromRemote
				: Messages.View_detached;
		String branches = row.state().branches().isEmpty() ? unnamed
				: String.join(", ", row.state().branches()); //$NON-NLS-1$
		return row.head() ? NLS.bind(Messages.View_headMarker, branches) : branches;
	}

	private Image image(Object element) {
		if (element instanceof RepositoryNode) {
			return image("icons/repository.png"); //$NON-NLS-1$
		}
		return ((StateRow) element).head() ? image("icons/head.png") : image("icons/states.png"); //$NON-NLS-1$ //$NON-NLS-2$
	}

	private Image image(String path) {
		Optional<ImageDescriptor> descriptor = ResourceLocator.imageDescriptorFromBundle(PLUGIN, path);
		return descriptor.map(resources::create).orElse(null);
	}

	private static String contributors(StateInfo state) {
		if (state.contributors() == null || state.contributors().isEmpty()) {
			return Messages.Format_none;
		}
		return state.contributors().entrySet().stream().sorted(Map.Entry.comparingByKey())
				.map(e -> NLS.bind(Messages.View_contributor, lastSegment(e.getKey()), e.getValue()))
				.collect(Collectors.joining(", ")); //$NON-NLS-1$
	}

	private static String lastSegment(String id) {
		int dot = id.lastIndexOf('.');
		return dot < 0 ? id : id.substring(dot + 1);
	}

	private void column(String title, int width, int style, Function<StateRow, String> rowText,
			Function<Object, Image> image) {
		TreeViewerColumn column = new TreeViewerColumn(viewer, style);
		column.getColumn().setText(title);
		column.getColumn().setWidth(width);
		column.getColumn().setMoveable(true);
		boolean first = viewer.getTree().getColumnCount() == 1;
		column.setLabelProvider(new ColumnLabelProvider() {
			@Override
			public String getText(Object element) {
				if (element instanceof RepositoryNode node) {
					return first ? node.name() : repositoryText(node, title);
				}
				return rowText.apply((StateRow) element);
			}

			@Override
			public Image getImage(Object element) {
				return image == null ? null : image.apply(element);
			}

			@Override
			public Font getFont(Object element) {
				return element instanceof RepositoryNode || ((StateRow) element).head() ? bold : null;
			}

			@Override
			public String getToolTipText(Object element) {
				if (element instanceof RepositoryNode node) {
					return node.gitDir().getPath();
				}
				StateRow row = (StateRow) element;
				if (!row.local()) {
					return NLS.bind(Messages.View_remoteRowTooltip, row.state().commitId());
				}
				return NLS.bind(Messages.View_rowTooltip,
						new Object[] { row.state().commitId(), row.state().archive(),
								row.state().contributors() == null ? "" : row.state().contributors().toString(), //$NON-NLS-1$
								Formats.size(row.state().uncompressedSize()) });
			}
		});
	}

	/** The repository line: nothing in most columns; HEAD and the state count in the commit and message ones. */
	private static String repositoryText(RepositoryNode node, String column) {
		if (column.equals(Messages.View_columnCommit)) {
			return node.head() == null ? "" : Formats.shortId(node.head().commitId()); //$NON-NLS-1$
		}
		if (column.equals(Messages.View_columnMessage)) {
			if (node.error() != null) {
				return NLS.bind(Messages.View_repositoryError, node.error());
			}
			String branch = node.head() == null || node.head().branch() == null ? Messages.View_detached
					: node.head().branch();
			if (node.states().isEmpty()) {
				return NLS.bind(Messages.View_repositoryNoStates, branch);
			}
			return NLS.bind(node.headHasState() ? Messages.View_repositoryHeadSaved : Messages.View_repositoryHeadNotSaved,
					branch, states(node.states().size()));
		}
		return ""; //$NON-NLS-1$
	}

	private static final class ContentProvider implements ITreeContentProvider {

		@Override
		public Object[] getElements(Object inputElement) {
			return ((List<?>) inputElement).toArray();
		}

		@Override
		public Object[] getChildren(Object parentElement) {
			return parentElement instanceof RepositoryNode node ? node.states().toArray() : new Object[0];
		}

		@Override
		public Object getParent(Object element) {
			return null;
		}

		@Override
		public boolean hasChildren(Object element) {
			return element instanceof RepositoryNode node && !node.states().isEmpty();
		}
	}

	// --- actions ---------------------------------------------------------------------------------------------------

	private void createActions() {
		ISharedImages shared = PlatformUI.getWorkbench().getSharedImages();
		restoreAction = new Action(Messages.View_restore) {
			@Override
			public void run() {
				restoreSelected();
			}
		};
		restoreAction.setToolTipText(Messages.View_restoreTip);
		restoreAction.setImageDescriptor(
				ResourceLocator.imageDescriptorFromBundle(PLUGIN, "icons/restore_state.png").orElse(null)); //$NON-NLS-1$

		deleteAction = new Action(Messages.View_delete) {
			@Override
			public void run() {
				deleteSelected();
			}
		};
		deleteAction.setToolTipText(Messages.View_deleteTip);
		deleteAction.setImageDescriptor(shared.getImageDescriptor(ISharedImages.IMG_ETOOL_DELETE));
		deleteAction.setDisabledImageDescriptor(shared.getImageDescriptor(ISharedImages.IMG_ETOOL_DELETE_DISABLED));

		copyPathAction = new Action(Messages.View_copyPath) {
			@Override
			public void run() {
				copyArchivePaths();
			}
		};
		copyPathAction.setImageDescriptor(shared.getImageDescriptor(ISharedImages.IMG_TOOL_COPY));

		openFolderAction = new Action(Messages.View_openFolder) {
			@Override
			public void run() {
				openArchiveFolder();
			}
		};
		openFolderAction.setImageDescriptor(shared.getImageDescriptor(ISharedImages.IMG_OBJ_FOLDER));

		refreshAction = new Action(Messages.View_refresh) {
			@Override
			public void run() {
				scheduleLoad();
			}
		};
		refreshAction.setToolTipText(Messages.View_refreshTip);
		refreshAction.setImageDescriptor(ResourceLocator
				.imageDescriptorFromBundle("org.eclipse.ui.ide", "icons/full/elcl16/refresh_nav.png").orElse(null)); //$NON-NLS-1$ //$NON-NLS-2$
		updateActions();
	}

	private void contributeToActionBars() {
		IToolBarManager toolBar = getViewSite().getActionBars().getToolBarManager();
		toolBar.add(restoreAction);
		toolBar.add(deleteAction);
		toolBar.add(new Separator());
		toolBar.add(refreshAction);

		MenuManager menu = new MenuManager();
		menu.setRemoveAllWhenShown(true);
		menu.addMenuListener(this::fillContextMenu);
		viewer.getControl().setMenu(menu.createContextMenu(viewer.getControl()));
		getSite().registerContextMenu(menu, viewer);
	}

	private void fillContextMenu(IMenuManager menu) {
		menu.add(restoreAction);
		menu.add(new Separator());
		menu.add(copyPathAction);
		menu.add(openFolderAction);
		menu.add(new Separator());
		menu.add(deleteAction);
		menu.add(new Separator());
		menu.add(refreshAction);
		menu.add(new Separator(org.eclipse.ui.IWorkbenchActionConstants.MB_ADDITIONS));
	}

	private List<StateRow> selectedRows() {
		IStructuredSelection selection = viewer.getStructuredSelection();
		List<StateRow> rows = new ArrayList<>();
		for (Object o : selection) {
			if (o instanceof StateRow row) {
				rows.add(row);
			}
		}
		return rows;
	}

	private void updateActions() {
		if (restoreAction == null || viewer == null) {
			return;
		}
		List<StateRow> rows = selectedRows();
		boolean service = StateServices.get().isPresent() && rows.stream().allMatch(StateRow::local);
		restoreAction.setEnabled(service && rows.size() == 1 && viewer.getStructuredSelection().size() == 1);
		deleteAction.setEnabled(service && !rows.isEmpty());
		copyPathAction.setEnabled(!rows.isEmpty() && rows.stream().allMatch(StateRow::local));
		openFolderAction.setEnabled(rows.size() == 1 && rows.get(0).local());
	}

	private void restoreSelected() {
		List<StateRow> rows = selectedRows();
		Optional<IStateService> service = StateServices.get();
		if (rows.size() != 1 || service.isEmpty()) {
			return;
		}
		StateInfo state = rows.get(0).state();
		new RestoreStateJob(service.get(), state.gitDir(), state.commitId()).schedule();
	}

	private void deleteSelected() {
		List<StateRow> rows = selectedRows();
		Optional<IStateService> service = StateServices.get();
		if (rows.isEmpty() || service.isEmpty()) {
			return;
		}
		String question = rows.size() == 1
				? NLS.bind(Messages.View_deleteQuestion, nameText(rows.get(0)), Formats.shortId(rows.get(0).state().commitId()))
				: NLS.bind(Messages.View_deleteQuestionMany, Formats.count(rows.size()));
		if (!MessageDialog.openQuestion(getSite().getShell(), Messages.View_deleteTitle, question)) {
			return;
		}
		IStateService s = service.get();
		Job job = new Job(Messages.View_deleteJob) {
			@Override
			protected IStatus run(IProgressMonitor monitor) {
				MultiStatus result = new MultiStatus(PLUGIN, 0, Messages.View_deleteFailed);
				for (StateRow row : rows) {
					try {
						s.delete(row.state());
					} catch (CoreException e) {
						result.add(e.getStatus());
					}
				}
				asyncExec(BranchStatesView.this::scheduleLoad);
				return result.isOK() ? Status.OK_STATUS : result;
			}

			@Override
			public boolean belongsTo(Object family) {
				return family == BranchstateUI.JOB_FAMILY;
			}
		};
		job.setUser(true);
		job.schedule();
	}

	private void copyArchivePaths() {
		String text = selectedRows().stream().map(r -> String.valueOf(r.state().archive()))
				.collect(Collectors.joining(System.lineSeparator()));
		if (text.isEmpty()) {
			return;
		}
		Clipboard clipboard = new Clipboard(viewer.getControl().getDisplay());
		try {
			clipboard.setContents(new Object[] { text }, new Transfer[] { TextTransfer.getInstance() });
		} finally {
			clipboard.dispose();
		}
	}

	private void openArchiveFolder() {
		List<StateRow> rows = selectedRows();
		if (rows.size() != 1 || rows.get(0).state().archive() == null) {
			return;
		}
		Path folder = rows.get(0).state().archive().toAbsolutePath().getParent();
		if (folder == null || !Program.launch(folder.toString())) {
			MessageDialog.openInformation(getSite().getShell(), Messages.View_openFolder,
					NLS.bind(Messages.View_openFolderFailed, folder));
		}
	}

	private void asyncExec(Runnable runnable) {
		if (display != null && !display.isDisposed()) {
			display.asyncExec(() -> {
				if (!viewer.getControl().isDisposed()) {
					runnable.run();
				}
			});
		}
	}
}
