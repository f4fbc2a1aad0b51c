package dev.branchstate.ui.internal;

import java.io.File;
import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.IPath;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;

import dev.branchstate.core.IStateService;

/**
 * What the UI reads from Git itself, with JGit: where a project's repository is (when the state service is not
 * there to say), where HEAD is, and the messages of the commits states were saved at. Each call opens the
 * repository and closes it again: cheap for a handful of look-ups, and nothing stays open behind the user's back.
 */
public final class GitInfo {

	/** HEAD of a repository: the commit (null in an empty repository) and the branch (null when detached). */
	public record Head(String commitId, String branch) {
	}

	private GitInfo() {
	}

	/**
	 * @return the Git directory of the project's repository: the state service's answer when it is there, else
	 *         JGit's search upwards from the project's location
	 */
	public static Optional<File> repositoryOf(IProject project) {
		if (project == null || !project.isAccessible()) {
			return Optional.empty();
		}
		Optional<IStateService> service = StateServices.get();
		if (service.isPresent()) {
			return service.get().repositoryOf(project);
		}
		IPath location = project.getLocation();
		if (location == null) {
			return Optional.empty();
		}
		FileRepositoryBuilder builder = new FileRepositoryBuilder().findGitDir(location.toFile());
		return Optional.ofNullable(builder.getGitDir());
	}

	public static Head head(File gitDir) throws IOException {
		try (Repository repository = open(gitDir)) {
			Ref head = repository.exactRef(Constants.HEAD);
			if (head == null) {
				return new Head(null, null);
			}
			ObjectId id = head.getObjectId();
			String branch = head.isSymbolic() ? Repository.shortenRefName(head.getTarget().getName()) : null;
			return new Head(id == null ? null : id.name(), branch);
		}
	}

	/** @return commit id → first line of its message, for the ids that exist in the repository */
	public static Map<String, String> shortMessages(File gitDir, Collection<String> commitIds) throws IOException {
		Map<String, String> messages = new HashMap<>();
		try (Repository repository = open(gitDir); RevWalk walk = new RevWalk(repository)) {
			for (String id : commitIds) {
				if (id == null || !ObjectId.isId(id)) {
					continue;
				}
				try {
					RevCommit commit = walk.parseCommit(ObjectId.fromString(id));
					messages.put(id, commit.getShortMessage());
				} catch (IOException e) {
					// the commit is gone (gc after a rebase): the view says so instead of a message
				}
			}
		}
		return messages;
	}

	/** @return the folder the user knows the repository by: its work tree (or the git dir of a bare one) */
	public static File workTreeOf(File gitDir) {
		if (gitDir.getName().equals(Constants.DOT_GIT)) {
			return gitDir.getParentFile();
		}
		try (Repository repository = open(gitDir)) {
			return repository.isBare() ? gitDir : repository.getWorkTree();
		} catch (IOException | RuntimeException e) {
			return gitDir;
		}
	}

	private static Repository open(File gitDir) throws IOException {
		return new FileRepositoryBuilder().setGitDir(gitDir).setMustExist(true).build();
	}
}
