package dev.branchstate.ui.tests;

import static dev.branchstate.ui.tests.UiTestSupport.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Path;
import java.text.NumberFormat;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.MultiStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.jface.viewers.StructuredSelection;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.swt.SWT;
import org.eclipse.swt.dnd.Clipboard;
import org.eclipse.swt.dnd.TextTransfer;
import org.eclipse.swt.widgets.Event;
import org.eclipse.swt.widgets.Menu;
import org.eclipse.swt.widgets.MenuItem;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.swt.widgets.TreeItem;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.PlatformUI;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateInfo;
import dev.branchstate.ui.BranchstateUI;
import dev.branchstate.ui.internal.Notices;
import dev.branchstate.ui.internal.views.BranchStatesView;
import dev.branchstate.ui.internal.views.RepositoryNode;
import dev.branchstate.ui.internal.views.StateRow;

/**
 * The Branch States view against a state service whose states and events the test controls (a real Git repository
 * and workspace project; an in-memory catalog): it lists the states with their commit messages, marks the one at
 * HEAD, and follows a branch switch and a failure as the events arrive.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BranchStatesViewTest {

	private static final Duration WAIT = Duration.ofSeconds(20);

	@TempDir
	Path tmp;

	private FakeStateService fake;
	private Git git;
	private IProject project;
	private File gitDir;

	@BeforeEach
	void setUp() throws Exception {
		git = UiTestSupport.initRepository(tmp.resolve("demo-app"));
		gitDir = git.getRepository().getDirectory();
		project = UiTestSupport.importProject("demo-app", git.getRepository().getWorkTree());
		fake = new FakeStateService();
		fake.addRepository(gitDir);
		fake.register();
	}

	@AfterEach
	void tearDown() throws Exception {
		fake.close(); // the view stays open: closing it would take it out of the perspective for the next tests
		UiTestSupport.delete(project);
		git.close();
	}

	@Test
	@Order(1)
	void viewIsInTheResourcePerspectiveOfAFreshWorkbench() {
		IWorkbenchPage page = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage();
		assertThat(page.getPerspective().getId()).isEqualTo("org.eclipse.ui.resourcePerspective");
		assertThat(page.findViewReference(BranchstateUI.VIEW_ID))
				.as("Branch States view placed by the perspective extension").isNotNull();
	}

	@Test
	void listsStatesMarksHeadAndFollowsEvents() throws Exception {
		String mainCommit = head();
		UiTestSupport.commit(git, "src/Release.java", "class Release {}\n", "Release 1.0: freeze the API");
		String releaseCommit = head();
		git.branchCreate().setName("release/1.0").call();
		git.reset().setMode(org.eclipse.jgit.api.ResetCommand.ResetType.HARD).setRef(mainCommit).call();
		git.branchCreate().setName("feature-x").call();
		git.checkout().setName("feature-x").call();
		UiTestSupport.commit(git, "src/Parser.java", "class Parser {}\n", "Feature X: incremental parser");
		String featureCommit = head();
		git.checkout().setName("main").call();

		Instant now = Instant.now();
		fake.add(state(releaseCommit, List.of("release/1.0"), now.minus(Duration.ofDays(6)), now.minus(Duration.ofDays(2)),
				412_000_000L, 1_730_000_000L));
		fake.add(state(mainCommit, List.of("main"), now.minus(Duration.ofHours(5)), now.minus(Duration.ofMinutes(40)),
				388_500_000L, 1_654_000_000L));

		IWorkbenchPage page = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage();
		BranchStatesView view = (BranchStatesView) page.showView(BranchstateUI.VIEW_ID);
		waitUntil("the view lists the two states of demo-app", WAIT,
				() -> repository(view) != null && repository(view).states().size() == 2 && showsFake(view));

		RepositoryNode repository = repository(view);
		assertThat(repository.name()).isEqualTo("demo-app");
		assertThat(repository.states()).extracting(r -> r.state().commitId()).containsExactly(mainCommit, releaseCommit);
		assertThat(repository.states()).extracting(StateRow::message)
				.containsExactly("Initial commit: README and Main", "Release 1.0: freeze the API");
		assertThat(repository.states()).extracting(StateRow::head).containsExactly(true, false);
		assertThat(cellTexts(view, mainCommit)).contains("main  \u2190 HEAD", mainCommit.substring(0, 7),
				"Initial commit: README and Main", "4.3\u00d7", "markers v1, resources v1");
		assertThat(view.bannerText()).contains("2 states of 1 repositories");

		// a branch switch: HEAD moves to feature-x, the service restores its state and says so
		git.checkout().setName("feature-x").call();
		fake.add(state(featureCommit, List.of("feature-x"), now.minus(Duration.ofDays(1)), now, 401_200_000L,
				1_702_000_000L));
		fake.fire(new StateEvent(StateEvent.Kind.RESTORED, gitDir, featureCommit, "feature-x", "restored",
				Status.OK_STATUS, 28_114, 1_702_000_000L, 14, Duration.ofMillis(1200)));

		String restored = "Restored 'feature-x': " + NumberFormat.getIntegerInstance().format(28_114) + " files in "
				+ String.format("%.1f", 1.2) + " s; 14 changed files rebuilt";
		waitUntil("the view shows the restored state of feature-x at HEAD", WAIT,
				() -> repository(view).states().size() == 3 && repository(view).states().get(0).head());
		assertThat(repository(view).states()).extracting(StateRow::head).containsExactly(true, false, false);
		assertThat(repository(view).states().get(0).message()).isEqualTo("Feature X: incremental parser");
		assertThat(view.bannerText()).isEqualTo(restored);
		waitUntil("a notice tells the user what was restored", WAIT,
				() -> Notices.shown().stream().anyMatch(n -> n.text().equals(restored) && !n.warning()));

		screenshot(view, mainCommit, "branch-states-view");

		// a failed switch: the view and a notice say why Eclipse rebuilds instead
		String failure = "The switch of demo-app from feature-x to main failed; builders rebuild what changed. "
				+ "The state archive of main is corrupt (entry bin/Main.class, offset 4096).";
		fake.fire(new StateEvent(StateEvent.Kind.FAILED, gitDir, mainCommit, "main", failure,
				new Status(IStatus.ERROR, "dev.branchstate.core", failure), 0, 0, 0, Duration.ofMillis(80)));
		waitUntil("the view tells why no state was restored", WAIT, () -> view.bannerText().startsWith(failure));
		assertThat(view.bannerText()).endsWith("Details are in the Error Log.");
		waitUntil("a warning notice tells the user", WAIT,
				() -> Notices.shown().stream().anyMatch(n -> n.warning() && n.text().startsWith(failure)));

		// a restore that left one contributor's data to the builders says which
		MultiStatus partial = new MultiStatus("dev.branchstate.core", 0, "partly restored");
		partial.add(Status.warning("Contributor 'Problem markers' failed on project demo-app: disk full"));
		fake.fire(new StateEvent(StateEvent.Kind.RESTORED, gitDir, featureCommit, "feature-x", "restored", partial,
				120, 4096, 0, Duration.ofMillis(300)));
		waitUntil("a warning notice names the failed contributor", WAIT, () -> Notices.shown().stream()
				.anyMatch(n -> n.warning() && n.text().startsWith("Restored 'feature-x': 120 files in 300 ms; nothing to rebuild")
						&& n.text().endsWith("left to the builders: Contributor 'Problem markers' failed on project demo-app: disk full")));
	}

	@Test
	void contextMenuCopiesTheArchivePathAndDeletesAfterConfirmation() throws Exception {
		String mainCommit = head();
		StateInfo state = state(mainCommit, List.of("main"), Instant.now(), Instant.now(), 1_000_000L, 3_000_000L);
		fake.add(state);
		BranchStatesView view = (BranchStatesView) PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage()
				.showView(BranchstateUI.VIEW_ID);
		waitUntil("the view lists the state", WAIT,
				() -> repository(view) != null && repository(view).states().size() == 1 && showsFake(view));
		view.viewer().setSelection(new StructuredSelection(repository(view).states().get(0)), true);
		Menu menu = view.viewer().getControl().getMenu();
		assertThat(UiTestSupport.shown(menu)).containsSubsequence("Restore", "Copy Archive Path",
				"Open Containing Folder", "Delete", "Refresh");

		click(menu, "Copy Archive Path");
		UiTestSupport.processEvents();
		Clipboard clipboard = new Clipboard(view.viewer().getControl().getDisplay());
		try {
			assertThat(clipboard.getContents(TextTransfer.getInstance())).isEqualTo(state.archive().toString());
		} finally {
			clipboard.dispose();
		}

		AtomicReference<String> confirmed = new AtomicReference<>();
		UiTestSupport.pressWhenShown("Delete States", "Yes", confirmed);
		click(menu, "Delete"); // returns when the question is answered
		waitUntil("the state deleted and the view updated", WAIT, () -> repository(view).states().isEmpty());
		assertThat(confirmed.get()).isEqualTo("Delete States");
		assertThat(fake.service().allStates()).isEmpty();
	}

	private static void click(Menu menu, String label) {
		UiTestSupport.shown(menu); // the items are made when the menu is about to show
		MenuItem item = Arrays.stream(menu.getItems()).filter(i -> UiTestSupport.label(i).equals(label)).findFirst()
				.orElseThrow(() -> new AssertionError("no menu item " + label));
		assertThat(item.isEnabled()).as("menu item %s enabled", label).isTrue();
		item.notifyListeners(SWT.Selection, new Event());
	}

	@Test
	void deletingAStateThroughTheServiceIsShownAfterRefresh() throws Exception {
		String mainCommit = head();
		StateInfo state = state(mainCommit, List.of("main"), Instant.now(), Instant.now(), 1_000_000L, 3_000_000L);
		fake.add(state);
		BranchStatesView view = (BranchStatesView) PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage()
				.showView(BranchstateUI.VIEW_ID);
		waitUntil("the view lists the state", WAIT,
				() -> repository(view) != null && repository(view).states().size() == 1 && showsFake(view));
		fake.service().delete(state);
		view.scheduleLoad();
		waitUntil("the view lists no state", WAIT, () -> repository(view).states().isEmpty());
		assertThat(view.viewer().getTree().getItem(0).getText(2)).isEqualTo("HEAD on main; no state saved yet");
	}

	private void screenshot(BranchStatesView view, String selectCommit, String name) throws Exception {
		Shell shell = view.getSite().getShell();
		shell.setBounds(shell.getDisplay().getPrimaryMonitor().getClientArea());
		StateRow row = repository(view).states().stream().filter(r -> r.state().commitId().equals(selectCommit))
				.findFirst().orElseThrow();
		view.viewer().setSelection(new StructuredSelection(row), true);
		view.setFocus();
		// let the window take its new size and the notice fade in
		long end = System.currentTimeMillis() + 1500;
		while (System.currentTimeMillis() < end) {
			UiTestSupport.processEvents();
			Thread.sleep(20);
		}
		Path file = UiTestSupport.screenshot(shell, name);
		assertThat(file).exists().isNotEmptyFile();
	}

	private List<String> cellTexts(BranchStatesView view, String commitId) {
		for (TreeItem repo : view.viewer().getTree().getItems()) {
			for (TreeItem item : repo.getItems()) {
				if (item.getData() instanceof StateRow row && row.state().commitId().equals(commitId)) {
					int columns = view.viewer().getTree().getColumnCount();
					return java.util.stream.IntStream.range(0, columns).mapToObj(item::getText).toList();
				}
			}
		}
		return List.of();
	}

	/** @return whether the view shows this test's states (it stays open between tests, and may still be loading) */
	private boolean showsFake(BranchStatesView view) {
		return repository(view).states().stream().allMatch(r -> r.state().archive().startsWith(tmp));
	}

	private RepositoryNode repository(BranchStatesView view) {
		return view.input().stream().filter(n -> n.name().equals("demo-app")).findFirst().orElse(null);
	}

	private String head() throws Exception {
		ObjectId id = git.getRepository().resolve("HEAD");
		return id.name();
	}

	private StateInfo state(String commitId, List<String> branches, Instant created, Instant lastUsed, long size,
			long uncompressed) {
		Path archive = tmp.resolve("store").resolve(commitId.substring(0, 2)).resolve(commitId + ".zip");
		return new StateInfo(gitDir, commitId, branches, archive, created, lastUsed, size, uncompressed,
				Map.of("dev.branchstate.core.resources", 1, "dev.branchstate.core.markers", 1), List.of());
	}
}
