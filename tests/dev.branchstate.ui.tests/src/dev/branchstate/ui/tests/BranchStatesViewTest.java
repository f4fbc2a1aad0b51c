package dev.branchstate.ui.tests;

import static dev.branchstate.ui.tests.UiTestSupport.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.MultiStatus;
import org.eclipse.core.runtime.NullProgressMonitor;
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
import org.eclipse.ui.IViewPart;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.PartInitException;
import org.eclipse.ui.PlatformUI;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.FrameworkUtil;

import dev.branchstate.core.IStateListener;
import dev.branchstate.core.IStateService;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.prefetch.Prefetcher;
import dev.branchstate.core.internal.remote.ManifestSigner;
import dev.branchstate.core.internal.remote.RemoteSettings;
import dev.branchstate.core.internal.service.RemoteService;
import dev.branchstate.core.internal.service.StateService;
import dev.branchstate.ui.BranchstateUI;
import dev.branchstate.ui.internal.Formats;
import dev.branchstate.ui.internal.Notices;
import dev.branchstate.ui.internal.views.BranchStatesView;
import dev.branchstate.ui.internal.views.RepositoryNode;
import dev.branchstate.ui.internal.views.StateRow;

/**
 * The Branch States view against the real core service: a real Git repository (JGit) imported as a project whose
 * {@code bin} folder is derived data (the Derived Folders preference), states saved by the service on three branches
 * into a store folder of the test's own. The view lists the states with their commit messages and real sizes, marks
 * the one at HEAD, follows a real restore, and a failure and a partial restore told through the service's
 * {@link IStateService#fireEvent(StateEvent)} (the service does not fail on demand).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BranchStatesViewTest {

	private static final Duration WAIT = Duration.ofSeconds(20);

	@TempDir
	Path tmp;

	private final List<StateEvent> events = new CopyOnWriteArrayList<>();
	private final IStateListener listener = events::add;
	private IStateService service;
	private Git git;
	private IProject project;
	private File gitDir;

	@BeforeEach
	void setUp() throws Exception {
		service = UiTestSupport.realService();
		UiTestSupport.useStore(tmp.resolve("store"));
		service.addStateListener(listener);
		git = UiTestSupport.initRepository(tmp.resolve("demo-app"));
		project = UiTestSupport.importProject("demo-app", git.getRepository().getWorkTree());
		UiTestSupport.saveBinManually(project);
		gitDir = service.repositoryOf(project).orElseThrow(() -> new AssertionError("repositoryOf(demo-app)"));
	}

	@AfterEach
	void tearDown() throws Exception {
		service.removeStateListener(listener);
		// the view stays open: closing it would take it out of the perspective for the next tests
		UiTestSupport.delete(project);
		UiTestSupport.useStore(null);
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
		git.checkout().setCreateBranch(true).setName("release/1.0").call();
		UiTestSupport.commit(git, "src/Release.java", "class Release {}\n", "Release 1.0: freeze the API");
		String releaseCommit = head();
		git.checkout().setName("main").call();
		git.checkout().setCreateBranch(true).setName("feature-x").call();
		UiTestSupport.commit(git, "src/Parser.java", "class Parser {}\n", "Feature X: incremental parser");
		String featureCommit = head();

		// a build and Save State on each branch, main last
		git.checkout().setName("release/1.0").call();
		UiTestSupport.settle(events);
		StateInfo release = saveWithBin(Map.of("Main.class", "Main 1.0", "Release.class", "Release 1.0"));
		git.checkout().setName("feature-x").call();
		UiTestSupport.settle(events);
		StateInfo feature = saveWithBin(Map.of("Main.class", "Main x", "Parser.class", "Parser x"));
		git.checkout().setName("main").call();
		UiTestSupport.settle(events);
		StateInfo main = saveWithBin(Map.of("Main.class", "Main main"));
		UiTestSupport.settle(events);

		BranchStatesView view = openFreshView();
		waitUntil("the view lists the three states of demo-app", WAIT,
				() -> repository(view) != null && repository(view).states().size() == 3 && showsThisTest(view));

		RepositoryNode repository = repository(view);
		assertThat(repository.name()).isEqualTo("demo-app");
		assertThat(repository.states()).extracting(r -> r.state().commitId()).containsExactly(mainCommit,
				featureCommit, releaseCommit);
		assertThat(repository.states()).extracting(StateRow::message).containsExactly(
				"Initial commit: README and Main", "Feature X: incremental parser", "Release 1.0: freeze the API");
		assertThat(repository.states()).extracting(StateRow::head).containsExactly(true, false, false);
		long mainSize = Files.size(main.archive());
		assertThat(main.size()).as("the size the catalog gives is the archive's").isEqualTo(mainSize);
		List<String> mainCells = cellTexts(view, mainCommit);
		assertThat(mainCells).contains("main  \u2190 HEAD", mainCommit.substring(0, 7),
				"Initial commit: README and Main", Formats.size(mainSize),
				Formats.ratio(main.uncompressedSize(), mainSize));
		assertThat(mainCells.get(mainCells.size() - 1)).as("contributors column").matches("derived v\\d+, markers v\\d+");
		assertThat(cellTexts(view, releaseCommit)).contains("release/1.0", Formats.size(Files.size(release.archive())));
		// on disk each file once: feature-x's state shares release/1.0's unchanged entries by linking its archive, whose
		// bytes its size counts too
		long onDisk = Files.size(main.archive()) + Files.size(feature.archive()) + Files.size(release.archive());
		assertThat(view.bannerText()).isEqualTo("3 states of 1 repository, " + Formats.size(onDisk) + " on disk");

		// a branch switch: HEAD moves to feature-x, its output is cleaned, the service restores its state and says so
		git.checkout().setName("feature-x").call();
		UiTestSupport.settle(events);
		project.getFolder("bin").delete(true, null);
		service.restore(gitDir, featureCommit, new NullProgressMonitor());
		assertThat(UiTestSupport.read(project.getFile("bin/Parser.class"))).as("feature-x's output is back")
				.isEqualTo("Parser x");
		StateEvent restoredEvent = events.stream().filter(e -> e.kind() == StateEvent.Kind.RESTORED).findFirst()
				.orElseThrow();
		assertThat(restoredEvent.files()).as("files restored").isGreaterThanOrEqualTo(2);
		String restored = "Restored 'feature-x': " + Formats.count(restoredEvent.files()) + " files in "
				+ Formats.duration(restoredEvent.duration())
				+ (restoredEvent.rebuilt() == 0 ? "; nothing to rebuild"
						: "; " + Formats.count(restoredEvent.rebuilt()) + " changed file"
								+ (restoredEvent.rebuilt() == 1 ? "" : "s") + " rebuilt");
		waitUntil("the view shows the restored state of feature-x at HEAD", WAIT,
				() -> repository(view).states().size() == 3 && repository(view).states().stream()
						.anyMatch(r -> r.head() && r.state().commitId().equals(featureCommit)));
		assertThat(repository(view).states()).filteredOn(StateRow::head).extracting(r -> r.state().commitId())
				.containsExactly(featureCommit);
		assertThat(repository(view).states().stream().filter(StateRow::head).findFirst().orElseThrow().message())
				.isEqualTo("Feature X: incremental parser");
		waitUntil("the view says what was restored", WAIT, () -> view.bannerText().equals(restored));
		waitUntil("a notice tells the user what was restored", WAIT,
				() -> Notices.shown().stream().anyMatch(n -> n.text().equals(restored) && !n.warning()));

		screenshot(view, mainCommit, "branch-states-view");

		// a failed switch, told through the service: the view and a notice say why Eclipse rebuilds instead
		String failure = "The switch of demo-app from feature-x to main failed; builders rebuild what changed. "
				+ "The state archive of main is corrupt (entry bin/Main.class, offset 4096).";
		service.fireEvent(new StateEvent(StateEvent.Kind.FAILED, gitDir, mainCommit, "main", failure,
				new Status(IStatus.ERROR, "dev.branchstate.core", failure), 0, 0, 0, Duration.ofMillis(80)));
		waitUntil("the view tells why no state was restored", WAIT, () -> view.bannerText().startsWith(failure));
		assertThat(view.bannerText()).endsWith("Details are in the Error Log.");
		waitUntil("a warning notice tells the user", WAIT,
				() -> Notices.shown().stream().anyMatch(n -> n.warning() && n.text().startsWith(failure)));

		// a restore that left one contributor's data to the builders says which
		MultiStatus partial = new MultiStatus("dev.branchstate.core", 0, "partly restored");
		partial.add(Status.warning("Contributor 'Problem markers' failed on project demo-app: disk full"));
		service.fireEvent(new StateEvent(StateEvent.Kind.RESTORED, gitDir, featureCommit, "feature-x", "restored",
				partial, 120, 4096, 0, Duration.ofMillis(300)));
		String partialText = "Restored 'feature-x': 120 files in 300 ms; nothing to rebuild Some derived data was left "
				+ "to the builders: Contributor 'Problem markers' failed on project demo-app: disk full";
		waitUntil("the view names the failed contributor", WAIT, () -> view.bannerText().equals(partialText));
		waitUntil("a warning notice names the failed contributor", WAIT,
				() -> Notices.shown().stream().anyMatch(n -> n.warning() && n.text().equals(partialText)));
	}

	@Test
	void contextMenuCopiesTheArchivePathAndDeletesAfterConfirmation() throws Exception {
		StateInfo state = saveWithBin(Map.of("Main.class", "Main main"));
		assertThat(state.archive()).exists();
		BranchStatesView view = openView();
		waitUntil("the view lists the state", WAIT,
				() -> repository(view) != null && repository(view).states().size() == 1 && showsThisTest(view));
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
		assertThat(state.archive()).as("the state archive").doesNotExist();
		assertThat(service.states(gitDir)).isEmpty();
	}

	/**
	 * A state the prefetch fetched ahead of a checkout is marked so, and the banner says what the prefetch uses of its
	 * budget. Real parts throughout: CI (this test's demo-app) publishes the state of its next commit to S3Proxy,
	 * signed; a developer's clone, made before that commit, is imported in its place and runs {@code git fetch}; the
	 * prefetch fetches the state, checked.
	 */
	@Test
	void aPrefetchedStateIsMarkedAndTheBannerSaysWhatThePrefetchUses() throws Exception {
		Path clone = tmp.resolve("developer").resolve("demo-app"); // the view names a repository by its folder
		try (Git developer = Git.cloneRepository().setURI(git.getRepository().getWorkTree().toURI().toString())
				.setDirectory(clone.toFile()).call();
				S3ProxyServer s3 = new S3ProxyServer(tmp.resolve("s3"))) {
			// CI publishes only the state of a clean work tree: the project file is committed
			Path projectFile = git.getRepository().getWorkTree().toPath().resolve(".project");
			UiTestSupport.commit(git, ".project", Files.readString(projectFile), "The project");
			UiTestSupport.commit(git, "src/Next.java", "class Next {}\n", "Next: built and published by CI");
			String next = head();
			RemoteService remote = ((StateService) service).remote();
			KeyPair key = ManifestSigner.generate();
			remote.setSettings(new RemoteSettings(s3.endpoint, S3ProxyServer.BUCKET, "team", "us-east-1", true,
					Optional.of(s3.credentials), Optional.of(key.getPublic()), Duration.ofSeconds(10)));
			try {
				saveWithBin(Map.of("Main.class", "Main next", "Next.class", "Next"));
				remote.publish(gitDir, next, key.getPrivate(), "ci", new NullProgressMonitor());
				for (StateInfo state : service.states(gitDir)) {
					service.delete(state);
				}
				// the developer's workspace: the clone under the same project name (states are kept by project name)
				UiTestSupport.delete(project);
				project = UiTestSupport.importProject("demo-app", clone.toFile());
				File developerGitDir = service.repositoryOf(project).orElseThrow();
				Prefetcher prefetcher = prefetcher();
				prefetcher.checkNow(); // the clone is taken as it is: what moves from now on is prefetched
				developer.fetch().call();
				waitUntil("the prefetch fetched the state of " + next, Duration.ofSeconds(120),
						() -> service.states(developerGitDir).stream().anyMatch(st -> st.commitId().equals(next)));

				BranchStatesView view = openFreshView();
				waitUntil("the view marks the state prefetched", WAIT, () -> repository(view) != null
						&& cellTexts(view, next).stream().anyMatch(c -> c.endsWith(", prefetched")));
				waitUntil("the banner says what the prefetch uses", WAIT,
						() -> view.bannerText().contains("prefetched and not used yet: 1 state,"));
				assertThat(prefetcher.ledger().prefetched(developerGitDir, next)).isTrue();
				assertThat(cellTexts(view, next).get(0)).as("no branch here: fetched").isEqualTo("(from the remote store)");
				screenshot(view, next, "branch-states-prefetched");
			} finally {
				remote.setSettings(null);
			}
		}
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
		StateInfo state = saveWithBin(Map.of("Main.class", "Main main"));
		BranchStatesView view = openView();
		waitUntil("the view lists the state", WAIT,
				() -> repository(view) != null && repository(view).states().size() == 1 && showsThisTest(view));
		service.delete(state);
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

	private static Prefetcher prefetcher() {
		var context = FrameworkUtil.getBundle(BranchStatesViewTest.class).getBundleContext();
		var reference = context.getServiceReference(Prefetcher.class);
		assertThat(reference).as("the prefetcher component").isNotNull();
		return context.getService(reference);
	}

	/** @return whether the view shows this test's states (it stays open between tests, and may still be loading) */
	private boolean showsThisTest(BranchStatesView view) {
		return repository(view).states().stream().allMatch(r -> r.state().archive().startsWith(tmp));
	}

	private RepositoryNode repository(BranchStatesView view) {
		return view.input().stream().filter(n -> n.name().equals("demo-app")).findFirst().orElse(null);
	}

	private String head() throws Exception {
		ObjectId id = git.getRepository().resolve("HEAD");
		return id.name();
	}

	/** "Builds" (writes bin) and saves the state of HEAD through the real service. */
	private StateInfo saveWithBin(Map<String, String> bin) throws Exception {
		UiTestSupport.writeBin(project, bin);
		return service.save(gitDir, new NullProgressMonitor());
	}

	private static BranchStatesView openView() throws PartInitException {
		return (BranchStatesView) PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage()
				.showView(BranchstateUI.VIEW_ID);
	}

	/** Closes the view if it is open and opens it again: it starts with the summary line, no event shown. */
	private static BranchStatesView openFreshView() throws PartInitException {
		IWorkbenchPage page = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage();
		IViewPart open = page.findView(BranchstateUI.VIEW_ID);
		if (open != null) {
			page.hideView(open);
			UiTestSupport.processEvents();
		}
		return openView();
	}
}
