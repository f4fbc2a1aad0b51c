package dev.branchstate.ui.internal.handlers;

import org.eclipse.core.expressions.PropertyTester;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.runtime.Adapters;

import dev.branchstate.ui.internal.GitInfo;

/**
 * {@code dev.branchstate.ui.inGitRepository}: true for a resource whose project lies in a Git repository. Used by
 * the commands' enablement and the menus' visibility.
 */
public final class GitProjectTester extends PropertyTester {

	public static final String IN_GIT_REPOSITORY = "inGitRepository"; //$NON-NLS-1$

	@Override
	public boolean test(Object receiver, String property, Object[] args, Object expectedValue) {
		if (!IN_GIT_REPOSITORY.equals(property)) {
			return false;
		}
		IResource resource = Adapters.adapt(receiver, IResource.class);
		boolean inRepository = resource != null && GitInfo.repositoryOf(resource.getProject()).isPresent();
		return expectedValue == null ? inRepository : expectedValue.equals(Boolean.valueOf(inRepository));
	}
}
