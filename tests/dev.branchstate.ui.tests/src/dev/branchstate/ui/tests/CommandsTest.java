package dev.branchstate.ui.tests;

import static dev.branchstate.ui.tests.UiTestSupport.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import org.eclipse.core.commands.Command;
import org.eclipse.core.commands.NotEnabledException;
import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IFolder;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.jface.viewers.ISelection;
import org.eclipse.jface.viewers.IStructuredSelection;
import org.eclipse.jface.viewers.StructuredSelection;
import org.eclipse.jgit.api.Git;
import org.eclipse.swt.SWT;
import org.eclipse.swt.widgets.Event;
import org.eclipse.swt.widgets.Menu;
import org.eclipse.swt.widgets.MenuItem;
import org.eclipse.ui.IPageLayout;
import org.eclipse.ui.ISources;
import org.eclipse.ui.IViewPart;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.PartInitException;
import org.eclipse.ui.PlatformUI;
import org.eclipse.ui.commands.ICommandService;
import org.eclipse.ui.handlers.IHandlerService;
import org.eclipse.ui.keys.IBindingService;
import org.eclipse.ui.navigator.CommonNavigator;
import org.eclipse.ui.part.ISetSelectionTarget;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.core.IStateListener;
import dev.branchstate.core.IStateService;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateInfo;
import dev.branchstate.ui.BranchstateUI;

/**
 * "Save State" and "Restore State…" through the handler service, as a menu item or the key binding runs them: enabled
 * for projects in a Git repository only, bound to Ctrl+Alt+S; "Restore State…" asks which state and restores the one
 * picked (the one at HEAD preselected); "Save State" stores a state of HEAD in the real state store.
 */
class CommandsTest {

	@TempDir
	Path tmp;

	private IProject gitProject;
	private IProject plainProject;
	private Git git;

	@AfterEach
	void tearDown() throws Exception {
		UiTestSupport.delete(gitProject);
		UiTestSupport.delete(plainProject);
		if (git != null) {
			git.close();
		}
	}

	@Test
	void commandsAreEnabledOnlyForProjectsInAGitRepository() throws Exception {
		git = UiTestSupport.initRepository(tmp.resolve("in-git"));
		gitProject = UiTestSupport.importProject("in-git", git.getRepository().getWorkTree());
		Path plain = Files.createDirectories(tmp.resolve("no-git"));
		plainProject = UiTestSupport.importProject("no-git", plain.toFile());

		for (String id : List.of(BranchstateUI.SAVE_STATE_COMMAND_ID, BranchstateUI.RESTORE_STATE_COMMAND_ID)) {
			Command command = commands().getCommand(id);
			assertThat(command.isDefined()).isTrue();
			select(gitProject);
			assertThat(enabled(command)).as("%s on a project in a Git repository", id).isTrue();
			select(plainProject);
			assertThat(enabled(command)).as("%s on a project outside Git", id).isFalse();
			assertThatThrownBy(() -> handlers().executeCommand(id, null)).isInstanceOf(NotEnabledException.class);
		}
	}

	@Test
	void projectMenuAndProjectContextMenuOfferTheCommands() throws Exception {
		git = UiTestSupport.initRepository(tmp.resolve("menu-app"));
		gitProject = UiTestSupport.importProject("menu-app", git.getRepository().getWorkTree());
		IViewPart explorer = select(gitProject);

		Menu bar = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getShell().getMenuBar();
		Menu projectMenu = Arrays.stream(bar.getItems()).filter(i -> UiTestSupport.label(i).equals("Project")).findFirst()
				.orElseThrow().getMenu();
		assertThat(UiTestSupport.shown(projectMenu)).contains("Save State", "Restore State...");

		Menu context = ((CommonNavigator) explorer).getCommonViewer().getControl().getMenu();
		List<String> contextItems = UiTestSupport.shown(context);
		assertThat(contextItems).contains("Branchstate");
		MenuItem submenu = Arrays.stream(context.getItems()).filter(i -> UiTestSupport.label(i).equals("Branchstate")).findFirst()
				.orElseThrow();
		assertThat(UiTestSupport.shown(submenu.getMenu())).containsExactly("Save State", "Restore State...");
		context.notifyListeners(SWT.Hide, new Event());
	}

	@Test
	void saveStateHasAKeyBindingNoOtherCommandUses() {
		// The active bindings of a command depend on which shell has the focus, which Xvfb without a window manager
		// does not settle: check what the binding manager holds for the active scheme instead.
		IBindingService bindings = PlatformUI.getWorkbench().getService(IBindingService.class);
		String scheme = bindings.getActiveScheme().getId();
		List<String> ctrlAltS = Arrays.stream(bindings.getBindings())
				.filter(b -> b.getParameterizedCommand() != null && b.getSchemeId().equals(scheme)
						&& b.getTriggerSequence().format().equals("Ctrl+Alt+S") && b.getPlatform() == null)
				.map(b -> b.getParameterizedCommand().getId() + " in " + b.getContextId()).toList();
		assertThat(ctrlAltS).containsExactly(BranchstateUI.SAVE_STATE_COMMAND_ID + " in org.eclipse.ui.contexts.window");
	}

	@Test
	void restoreStateAsksWhichStateAndRestoresTheOneAtHead() throws Exception {
		IStateService service = UiTestSupport.realService();
		UiTestSupport.useStore(tmp.resolve("store"));
		List<StateEvent> events = new CopyOnWriteArrayList<>();
		IStateListener listener = events::add;
		service.addStateListener(listener);
		try {
			git = UiTestSupport.initRepository(tmp.resolve("restore-app"));
			String first = git.getRepository().resolve("HEAD").name();
			git.checkout().setCreateBranch(true).setName("topic").call();
			UiTestSupport.commit(git, "src/Second.java", "class Second {}\n", "Second commit");
			String second = git.getRepository().resolve("HEAD").name();
			git.checkout().setName("main").call();
			gitProject = UiTestSupport.importProject("restore-app", git.getRepository().getWorkTree());
			UiTestSupport.saveBinManually(gitProject);
			File gitDir = service.repositoryOf(gitProject).orElseThrow(() -> new AssertionError("repositoryOf"));

			// a state of main (the first commit), then a newer one of topic
			UiTestSupport.writeBin(gitProject, Map.of("Main.class", "Main of main"));
			service.save(gitDir, new NullProgressMonitor());
			git.checkout().setName("topic").call();
			UiTestSupport.settle(events);
			UiTestSupport.writeBin(gitProject, Map.of("Main.class", "Main of topic", "Second.class", "Second"));
			service.save(gitDir, new NullProgressMonitor());
			assertThat(service.states(gitDir)).extracting(StateInfo::commitId).containsExactly(second, first);

			git.checkout().setName(first).call(); // HEAD detached at the older commit: its state is not the newest
			UiTestSupport.settle(events);
			select(gitProject);

			AtomicReference<String> dialogTitle = new AtomicReference<>();
			UiTestSupport.pressWhenShown("Restore State", "Restore", dialogTitle, "restore-state-dialog");
			handlers().executeCommand(BranchstateUI.RESTORE_STATE_COMMAND_ID, null); // returns when the dialog closes
			waitUntil("the restore job to restore a state", Duration.ofSeconds(30),
					() -> events.stream().anyMatch(e -> e.kind() == StateEvent.Kind.RESTORED));
			assertThat(dialogTitle.get()).isEqualTo("Restore State");
			assertThat(events).filteredOn(e -> e.kind() == StateEvent.Kind.RESTORED).extracting(StateEvent::commitId)
					.containsExactly(first);
			assertThat(UiTestSupport.read(gitProject.getFile("bin/Main.class"))).as("main's output is back")
					.isEqualTo("Main of main");
			assertThat(gitProject.getFile("bin/Second.class").exists()).as("topic's output is gone").isFalse();
		} finally {
			service.removeStateListener(listener);
			UiTestSupport.useStore(null);
		}
	}

	@Test
	void saveStateCommandStoresAStateOfHead() throws Exception {
		IStateService service = UiTestSupport.realService();
		git = UiTestSupport.initRepository(tmp.resolve("save-app"));
		String head = git.getRepository().resolve("HEAD").name();
		gitProject = UiTestSupport.importProject("save-app", git.getRepository().getWorkTree());
		IFolder bin = gitProject.getFolder("bin");
		bin.create(true, true, null);
		IFile output = bin.getFile("Main.class");
		output.create("compiled Main".getBytes(), true, false, null);
		bin.setDerived(true, null);
		File gitDir = service.repositoryOf(gitProject).orElseThrow(() -> new AssertionError("repositoryOf(project)"));

		select(gitProject);
		handlers().executeCommand(BranchstateUI.SAVE_STATE_COMMAND_ID, null);
		waitUntil("the Save State job to finish", Duration.ofSeconds(60),
				() -> Job.getJobManager().find(BranchstateUI.JOB_FAMILY).length == 0
						&& !service.states(gitDir).isEmpty());

		List<StateInfo> states = service.states(gitDir);
		assertThat(states).as("states of the repository after Save State").isNotEmpty();
		StateInfo state = states.get(0);
		assertThat(state.commitId()).isEqualTo(head);
		assertThat(state.branches()).contains("main");
		assertThat(state.archive()).as("the state archive").exists().isNotEmptyFile();
	}

	/** Selects the project in the Project Explorer, as the user does before using the menu or the key. */
	private static IViewPart select(IProject project) throws PartInitException {
		IWorkbenchPage page = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage();
		IViewPart explorer = page.showView(IPageLayout.ID_PROJECT_EXPLORER);
		page.activate(explorer);
		UiTestSupport.processEvents();
		((ISetSelectionTarget) explorer).selectReveal(new StructuredSelection(project));
		UiTestSupport.waitUntil("the project selected in the Project Explorer", Duration.ofSeconds(10), () -> {
			ISelection selection = handlers().getCurrentState().getVariable(ISources.ACTIVE_CURRENT_SELECTION_NAME) instanceof ISelection s
					? s : null;
			return selection instanceof IStructuredSelection structured && structured.getFirstElement() == project;
		});
		return explorer;
	}

	private static boolean enabled(Command command) {
		command.setEnabled(handlers().getCurrentState());
		return command.isEnabled();
	}

	private static IHandlerService handlers() {
		return PlatformUI.getWorkbench().getService(IHandlerService.class);
	}

	private static ICommandService commands() {
		return PlatformUI.getWorkbench().getService(ICommandService.class);
	}
}
