package dev.branchstate.ui.internal.handlers;

import java.util.Optional;

import org.eclipse.core.commands.ExecutionEvent;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.runtime.Adapters;
import org.eclipse.jface.viewers.ISelection;
import org.eclipse.jface.viewers.IStructuredSelection;
import org.eclipse.ui.IEditorInput;
import org.eclipse.ui.IEditorPart;
import org.eclipse.ui.handlers.HandlerUtil;

/** The project a command applies to: the selected resource's project, else the active editor's. */
final class Selections {

	private Selections() {
	}

	static Optional<IProject> project(ExecutionEvent event) {
		ISelection selection = HandlerUtil.getCurrentSelection(event);
		if (selection instanceof IStructuredSelection structured && !structured.isEmpty()) {
			IResource resource = Adapters.adapt(structured.getFirstElement(), IResource.class);
			if (resource != null) {
				return Optional.of(resource.getProject());
			}
		}
		IEditorPart editor = HandlerUtil.getActiveEditor(event);
		if (editor != null) {
			IEditorInput input = editor.getEditorInput();
			IResource resource = input == null ? null : Adapters.adapt(input, IResource.class);
			if (resource != null) {
				return Optional.of(resource.getProject());
			}
		}
		return Optional.empty();
	}
}
