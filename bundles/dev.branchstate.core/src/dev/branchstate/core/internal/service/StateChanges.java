package dev.branchstate.core.internal.service;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;

/**
 * What differs between a state and the working tree, per project, and how the working tree was compared: found once,
 * on first use. A restore plans and checks what it will read while Git still reads the working tree's status (a
 * switch reads it ahead while it refreshes the workspace), and asks for the changes only then.
 */
final class StateChanges {

	/** The changes found: project → paths that differ (project-relative), and the comparison that found them. */
	record Found(Map<IProject, Set<IPath>> byProject, WorkingTreeComparison comparison) {
		Found {
			Map<IProject, Set<IPath>> copy = new LinkedHashMap<>();
			byProject.forEach((project, paths) -> copy.put(project, Set.copyOf(paths)));
			byProject = Collections.unmodifiableMap(copy);
		}
	}

	/** Finds the changes (reads Git's status, or waits for it, and compares the trees). */
	@FunctionalInterface
	interface Finder {
		Found find() throws CoreException;
	}

	private final Finder finder;
	private Found found;
	private CoreException failure;

	StateChanges(Finder finder) {
		this.finder = finder;
	}

	/** @return the changes, found now if not yet; the same failure every time once finding them failed */
	synchronized Found get() throws CoreException {
		if (found == null && failure == null) {
			try {
				found = finder.find();
			} catch (CoreException e) {
				failure = e;
			}
		}
		if (failure != null) {
			throw failure;
		}
		return found;
	}

	/**
	 * For a contributor's context, which cannot throw: the changes, found now if not yet.
	 *
	 * @throws IllegalStateException when they cannot be found (the restore fails with the cause where it asks first)
	 */
	Found getUnchecked() {
		try {
			return get();
		} catch (CoreException e) {
			throw new IllegalStateException(e.getStatus().getMessage(), e);
		}
	}
}
