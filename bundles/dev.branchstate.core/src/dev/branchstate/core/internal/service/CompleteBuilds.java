package dev.branchstate.core.internal.service;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.osgi.util.NLS;

import dev.branchstate.core.internal.Messages;

/**
 * Which projects of a repository a state may hold: those whose derived data is a complete build. A project whose
 * build cannot complete (a build-path error, a missing library, a cycle, a restore that did not finish) is left to
 * its builders, as if Branchstate were not installed for it, and so is every project that reads it (its project
 * references, JDT's required projects among them, directly or through others): their output was built against
 * output the state does not hold, so restoring it could hand a builder class files compiled against another
 * version of the project they read. The other projects are saved: one project with a missing library does not
 * disable Branchstate for the repository.
 * <p>
 * The restore keeps the same rule from the other side ({@link RestoreOperation#handOffCandidates}): a builder's
 * state is handed over only when every project it reads is handed over too.
 */
public final class CompleteBuilds {

	/** The projects a state holds, in the repository's order, and the ones left out with the reason for each. */
	public record Split(List<IProject> complete, Map<IProject, String> leftOut) {

		/** @return the projects left out with their reasons, for the user: {@code 'a': reason; 'b': reason} */
		public String describeLeftOut() {
			return leftOut.entrySet().stream()
					.map(e -> NLS.bind(Messages.Service_leftOutProject, e.getKey().getName(), e.getValue()))
					.collect(Collectors.joining("; ")); //$NON-NLS-1$
		}
	}

	private CompleteBuilds() {
	}

	/**
	 * @param projects      the repository's projects
	 * @param whyIncomplete why a project's derived data may not be its complete build, empty when it is
	 */
	public static Split split(List<IProject> projects, Function<IProject, Optional<String>> whyIncomplete) {
		Map<IProject, String> leftOut = new LinkedHashMap<>();
		for (IProject project : projects) {
			whyIncomplete.apply(project).ifPresent(reason -> leftOut.put(project, reason));
		}
		// a project read from outside the repository counts too: its output is in no state of this one
		Map<IProject, Optional<String>> outside = new LinkedHashMap<>();
		boolean added = true;
		while (added) {
			added = false;
			for (IProject project : projects) {
				if (leftOut.containsKey(project)) {
					continue;
				}
				Optional<String> reason = readsIncomplete(project, projects, leftOut,
						p -> outside.computeIfAbsent(p, whyIncomplete));
				if (reason.isPresent()) {
					leftOut.put(project, reason.get());
					added = true;
				}
			}
		}
		return new Split(projects.stream().filter(p -> !leftOut.containsKey(p)).toList(), leftOut);
	}

	/** @return why the project reads output that is no complete build, empty when it does not */
	private static Optional<String> readsIncomplete(IProject project, List<IProject> projects,
			Map<IProject, String> leftOut, Function<IProject, Optional<String>> outsideIncomplete) {
		IProject[] referenced;
		try {
			referenced = project.getReferencedProjects();
		} catch (CoreException e) {
			return Optional.of(NLS.bind(Messages.Service_referencesUnknown, e.getStatus().getMessage()));
		}
		for (IProject read : referenced) {
			if (leftOut.containsKey(read)
					|| read.isAccessible() && !projects.contains(read) && outsideIncomplete.apply(read).isPresent()) {
				return Optional.of(NLS.bind(Messages.Service_readsIncomplete, read.getName()));
			}
		}
		return Optional.empty();
	}
}
