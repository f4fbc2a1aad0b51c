package dev.branchstate.ui.internal.views;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.SubMonitor;

import dev.branchstate.core.IStateService;
import dev.branchstate.core.StateInfo;
import dev.branchstate.ui.internal.GitInfo;

/**
 * Builds what the view shows, off the display thread: every repository that has states or holds an open project of
 * the workspace, with HEAD and commit messages read by JGit.
 */
final class StatesModel {

	private StatesModel() {
	}

	static List<RepositoryNode> load(IStateService service, IProgressMonitor monitor) {
		Map<File, List<StateInfo>> byRepository = new LinkedHashMap<>();
		for (IProject project : ResourcesPlugin.getWorkspace().getRoot().getProjects()) {
			if (project.isOpen()) {
				Optional<File> gitDir = service.repositoryOf(project);
				gitDir.ifPresent(dir -> byRepository.computeIfAbsent(canonical(dir), k -> new ArrayList<>()));
			}
		}
		for (StateInfo state : service.allStates()) {
			byRepository.computeIfAbsent(canonical(state.gitDir()), k -> new ArrayList<>()).add(state);
		}
		SubMonitor progress = SubMonitor.convert(monitor, byRepository.size());
		List<RepositoryNode> nodes = new ArrayList<>();
		for (Map.Entry<File, List<StateInfo>> e : byRepository.entrySet()) {
			Set<String> remote = Set.of();
			String remoteError = null;
			try {
				remote = service.remoteStates(e.getKey(), progress.split(1));
			} catch (CoreException x) {
				remoteError = x.getStatus().getMessage();
			}
			nodes.add(node(e.getKey(), e.getValue(), remote, remoteError));
		}
		nodes.sort((a, b) -> a.name().compareToIgnoreCase(b.name()));
		return nodes;
	}

	private static RepositoryNode node(File gitDir, List<StateInfo> states, Set<String> remote, String remoteError) {
		String name = GitInfo.workTreeOf(gitDir).getName();
		GitInfo.Head head = null;
		Map<String, String> messages = Map.of();
		String error = null;
		try {
			head = GitInfo.head(gitDir);
			List<String> commits = new ArrayList<>(states.stream().map(StateInfo::commitId).toList());
			commits.addAll(remote);
			messages = GitInfo.shortMessages(gitDir, commits);
		} catch (IOException | RuntimeException e) {
			error = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
		}
		String headCommit = head == null ? null : head.commitId();
		List<StateRow> rows = new ArrayList<>();
		Set<String> local = new HashSet<>();
		Set<String> prefetched = states.isEmpty() ? Set.of() : PrefetchedStates.of(gitDir);
		for (StateInfo state : states) {
			local.add(state.commitId());
			rows.add(new StateRow(gitDir, state, messages.get(state.commitId()),
					headCommit != null && Objects.equals(headCommit, state.commitId()),
					remote.contains(state.commitId()) ? StateRow.Where.BOTH : StateRow.Where.LOCAL,
					prefetched.contains(state.commitId())));
		}
		for (String commit : remote) {
			if (!local.contains(commit)) {
				StateInfo only = new StateInfo(gitDir, commit, List.of(), null, null, null, 0, 0, Map.of(), List.of());
				rows.add(new StateRow(gitDir, only, messages.get(commit), Objects.equals(headCommit, commit),
						StateRow.Where.REMOTE, false));
			}
		}
		if (remoteError != null) {
			error = error == null ? remoteError : error + "; " + remoteError; //$NON-NLS-1$
		}
		return new RepositoryNode(gitDir, name, head, List.copyOf(rows), error);
	}

	private static File canonical(File file) {
		try {
			return file.getCanonicalFile();
		} catch (IOException e) {
			return file.getAbsoluteFile();
		}
	}
}
