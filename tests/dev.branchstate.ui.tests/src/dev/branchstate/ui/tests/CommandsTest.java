package dev.branchstate.ui.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.eclipse.core.commands.Command;
import org.eclipse.core.commands.NotEnabledException;
import org.eclipse.core.resources.IProject;
import org.eclipse.jface.viewers.ISelection;
import org.eclipse.jface.viewers.IStructuredSelection;
import org.eclipse.jface.viewers.StructuredSelection;
import org.eclipse.jgit.api.Git;
import org.eclipse.ui.IPageLayout;
import org.eclipse.ui.ISources;
import org.eclipse.ui.IViewPart;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.PartInitException;
import org.eclipse.ui.PlatformUI;
import org.eclipse.ui.commands.ICommandService;
import org.eclipse.ui.handlers.IHandlerService;
import org.eclipse.ui.part.ISetSelectionTarget;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.ui.BranchstateUI;

/**
 * "Save State" and "Restore State…" through the handler service, as a menu item or the key binding runs them: enabled
 * for projects in a Git repository only.
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

	/** Selects the project in the Project Explorer, as the user does before using the menu or the key. */
	private static void select(IProject project) throws PartInitException {
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
