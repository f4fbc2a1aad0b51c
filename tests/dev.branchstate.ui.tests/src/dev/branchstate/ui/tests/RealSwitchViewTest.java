package dev.branchstate.ui.tests;

import static dev.branchstate.ui.tests.UiTestSupport.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.eclipse.core.resources.ICommand;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IncrementalProjectBuilder;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.jgit.api.Git;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.PlatformUI;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.core.IStateListener;
import dev.branchstate.core.IStateService;
import dev.branchstate.core.StateEvent;
import dev.branchstate.ui.BranchstateUI;
import dev.branchstate.ui.internal.Notices;
import dev.branchstate.ui.internal.views.BranchStatesView;
import dev.branchstate.ui.internal.views.RepositoryNode;

/**
 * The Branch States view with the real core service and switch protocol, on a project whose builder makes derived
 * files: Save State on main, a checkout of feature-x from "the terminal" (JGit on the work tree) and a build, then
 * back to main. The view follows the events of the switch, lists both states and marks main's as HEAD, the user gets
 * the restore notice, and feature-x's output is gone. Ends with a screenshot of the workbench.
 */
class RealSwitchViewTest {

	private static final Duration WAIT = Duration.ofSeconds(60);

	@TempDir
	Path tmp;

	private IProject project;
	private Git git;
	private final List<StateEvent> events = new CopyOnWriteArrayList<>();
	private final IStateListener listener = events::add;

	@AfterEach
	void tearDown() throws Exception {
		UiTestSupport.realService().removeStateListener(listener);
		// the view stays open: closing it would take it out of the perspective for the next tests
		UiTestSupport.delete(project);
		if (git != null) {
			git.close();
		}
	}

	@Test
	void viewFollowsARealSwitchAndMarksTheRestoredState() throws Exception {
		IStateService service = UiTestSupport.realService();
		git = UiTestSupport.initRepository(tmp.resolve("shop"));
		String mainCommit = git.getRepository().resolve("HEAD").name();
		git.checkout().setCreateBranch(true).setName("feature-x").call();
		UiTestSupport.commit(git, "src/Parser.java", "class Parser {}\n", "Feature X: incremental parser");
		String featureCommit = git.getRepository().resolve("HEAD").name();
		git.checkout().setName("main").call();
		project = UiTestSupport.importProject("shop", git.getRepository().getWorkTree());
		IProjectDescription description = project.getDescription();
		ICommand compiler = description.newCommand();
		compiler.setBuilderName(FakeCompiler.ID);
		description.setBuildSpec(new ICommand[] { compiler });
		project.setDescription(description, null);
		File gitDir = service.repositoryOf(project).orElseThrow(() -> new AssertionError("repositoryOf(shop)"));
		build();
		assertThat(project.getFile("bin/Main.class").exists()).isTrue();

		service.addStateListener(listener);
		IWorkbenchPage page = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage();
		BranchStatesView view = (BranchStatesView) page.showView(BranchstateUI.VIEW_ID);
		service.save(gitDir, new NullProgressMonitor()); // Save State on main
		waitUntil("the view lists the state of main", WAIT, () -> states(view) == 1);

		// to feature-x from the terminal, then a build: Parser.class appears
		git.checkout().setName("feature-x").call();
		project.refreshLocal(IResource.DEPTH_INFINITE, null);
		waitUntil("the core to handle the checkout of feature-x", WAIT,
				() -> events.stream().anyMatch(e -> "feature-x".equals(e.branch())));
		build();
		assertThat(project.getFile("bin/Parser.class").exists()).isTrue();

		// back to main: the core saves feature-x's state and restores main's
		int noticesBefore = Notices.shown().size();
		git.checkout().setName("main").call();
		project.refreshLocal(IResource.DEPTH_INFINITE, null);
		try {
			waitUntil("the restore notice", WAIT, () -> Notices.shown().stream().skip(noticesBefore)
					.anyMatch(n -> n.text().startsWith("Restored 'main'")));
		} catch (AssertionError e) {
			throw new AssertionError(e.getMessage() + "; events: " + events + "; view: " + view.bannerText(), e);
		}
		waitUntil("the view lists both states, main's marked as HEAD", WAIT, () -> states(view) == 2
				&& repository(view).states().stream().anyMatch(r -> r.head() && r.state().commitId().equals(mainCommit))
				&& repository(view).states().stream().anyMatch(r -> !r.head() && r.state().commitId().equals(featureCommit)));
		waitUntil("the view to say what was restored", WAIT, () -> view.bannerText().startsWith("Restored 'main'"));
		assertThat(project.getFile("bin/Parser.class").exists()).as("feature-x's output is gone").isFalse();
		assertThat(project.getFile("bin/Main.class").exists()).isTrue();

		Shell shell = view.getSite().getShell();
		shell.setBounds(shell.getDisplay().getPrimaryMonitor().getClientArea());
		view.setFocus();
		assertThat(UiTestSupport.screenshot(shell, "branch-states-real-switch")).exists();
	}

	private void build() throws Exception {
		project.build(IncrementalProjectBuilder.INCREMENTAL_BUILD, null);
	}

	private static int states(BranchStatesView view) {
		RepositoryNode node = repository(view);
		return node == null ? -1 : node.states().size();
	}

	private static RepositoryNode repository(BranchStatesView view) {
		return view.input().stream().filter(n -> n.name().equals("shop")).findFirst().orElse(null);
	}
}
