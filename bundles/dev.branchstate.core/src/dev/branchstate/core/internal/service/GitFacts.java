package dev.branchstate.core.internal.service;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.osgi.util.NLS;

import dev.branchstate.core.internal.Messages;

/**
 * What a save or a restore asks Git: the repository of a Git directory, its current branch, the branches and the
 * commits in use, and how a commit id is shown in messages. Reads only; nothing here writes to a repository.
 */
public final class GitFacts {

	private GitFacts() {
	}

	/** @return the repository of the Git directory, opened (the caller closes it) */
	static Repository open(File gitDir) throws IOException {
		if (!Files.isDirectory(gitDir.toPath())) {
			throw new IOException(NLS.bind(Messages.Service_noRepository, gitDir));
		}
		return new FileRepositoryBuilder().setGitDir(gitDir).setMustExist(true).build();
	}

	/** @return the local branch HEAD is on, or {@code null} when HEAD is detached */
	static String currentBranch(Repository repository) throws IOException {
		String full = repository.getFullBranch();
		return full != null && full.startsWith(Constants.R_HEADS) ? Repository.shortenRefName(full) : null;
	}

	/** @return the local branches that point at the commit */
	static List<String> branchesAt(Repository repository, String commit) throws IOException {
		List<String> result = new ArrayList<>();
		for (Ref ref : repository.getRefDatabase().getRefsByPrefix(Constants.R_HEADS)) {
			if (ref.getObjectId() != null && ref.getObjectId().name().equals(commit)) {
				result.add(Repository.shortenRefName(ref.getName()));
			}
		}
		return result;
	}

	/** @return the commits that a local branch or HEAD points at now */
	static Set<String> commitsInUse(Repository repository) throws IOException {
		Set<String> result = new HashSet<>();
		for (Ref ref : repository.getRefDatabase().getRefsByPrefix(Constants.R_HEADS)) {
			if (ref.getObjectId() != null) {
				result.add(ref.getObjectId().name());
			}
		}
		ObjectId head = repository.resolve(Constants.HEAD);
		if (head != null) {
			result.add(head.name());
		}
		return result;
	}

	/** @return the commit id as messages show it: its first ten digits, "?" for none */
	/**
	 * @return whether a Git command is changing the index and the working tree now: it holds the index's lock file
	 *         (a checkout, reset, merge, stash… in a terminal or another tool)
	 */
	static boolean commandRunning(Repository repository) {
		File index = repository.isBare() ? null : repository.getIndexFile();
		return index != null && Files.exists(index.toPath().resolveSibling(index.getName() + ".lock")); //$NON-NLS-1$
	}

	/** @return the commit HEAD names now, {@code null} when it names none */
	static String head(Repository repository) throws IOException {
		ObjectId head = repository.resolve(Constants.HEAD);
		return head == null ? null : head.name();
	}

	public static String shortId(String commit) {
		return commit == null ? "?" : commit.substring(0, Math.min(10, commit.length())); //$NON-NLS-1$
	}
}
