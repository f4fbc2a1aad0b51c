package dev.branchstate.jdt.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.jdt.core.IJavaProject;
import org.eclipse.jdt.core.compiler.CompilationParticipant;

/**
 * What each Java project's output was last built against ({@link JavaCompatibility}): taken when JDT finishes a
 * build of the project (a compilation participant: JDT tells it after every build, also one that compiled nothing
 * or failed), and set when a restore hands the project a state built against what that state names. A state is
 * saved at a switch after the checkout, when JDT's model may read the project's configuration from the branch
 * entered (a {@code .settings} file or build path it had not read before): told then, the description would be the
 * branch entered's, not the saved output's. Before the first build of a session, it is told from the model.
 */
public final class LastBuiltAgainst extends CompilationParticipant {

	private static final Map<String, JavaCompatibility.Snapshot> BY_PROJECT = new ConcurrentHashMap<>();

	@Override
	public boolean isActive(IJavaProject project) {
		return true;
	}

	/** Takes the configuration the build ran with; the libraries' contents are hashed when a state is saved. */
	@Override
	public void buildFinished(IJavaProject project) {
		try {
			BY_PROJECT.put(project.getElementName(), JavaCompatibility.snapshot(project.getProject()));
		} catch (CoreException e) {
			BY_PROJECT.remove(project.getElementName());
		}
	}

	/** @return what the project's output was built against, as {@link JavaCompatibility#of} tells it */
	static String of(IProject project) throws CoreException {
		JavaCompatibility.Snapshot last = BY_PROJECT.get(project.getName());
		return last != null ? JavaCompatibility.describe(last) : JavaCompatibility.of(project);
	}

	/** A restore hands the project output built against {@code then}. */
	static void restored(IProject project, String then) {
		BY_PROJECT.put(project.getName(), JavaCompatibility.Snapshot.told(then));
	}
}
