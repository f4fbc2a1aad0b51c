package dev.branchstate.core.internal.switching;

import java.io.IOException;

import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;

import dev.branchstate.core.internal.service.GitFacts;

/**
 * Where HEAD of a repository is: a commit and the branch it was reached through ({@code null} when detached).
 *
 * @param commitId 40 hex digits
 * @param branch   short branch name, or {@code null} for a detached HEAD
 */
record Head(String commitId, String branch) {

	Head {
		if (commitId == null || !ObjectId.isId(commitId)) {
			throw new IllegalArgumentException("not a commit id: " + commitId); //$NON-NLS-1$
		}
	}

	/** @return HEAD of the repository, or {@code null} for an unborn branch (no commit yet) */
	static Head read(Repository repository) throws IOException {
		Ref head = repository.exactRef(Constants.HEAD);
		if (head == null || head.getObjectId() == null) {
			return null;
		}
		String branch = null;
		if (head.isSymbolic()) {
			String target = head.getTarget().getName();
			branch = target.startsWith(Constants.R_HEADS) ? target.substring(Constants.R_HEADS.length()) : target;
		}
		return new Head(head.getObjectId().name(), branch);
	}

	boolean detached() {
		return branch == null;
	}

	String shortId() {
		return GitFacts.shortId(commitId);
	}

	/** @return e.g. {@code main (1a2b3c4d5e)} or {@code 1a2b3c4d5e (detached)} */
	String describe() {
		return branch != null ? branch + " (" + shortId() + ")" : shortId() + " (detached)"; //$NON-NLS-1$ //$NON-NLS-2$
	}

	/** @return the form kept in the file of handled heads */
	String encode() {
		return branch == null ? commitId : commitId + ' ' + branch;
	}

	/** @return the head encoded by {@link #encode()}, or {@code null} when the text is not one */
	static Head decode(String text) {
		if (text == null) {
			return null;
		}
		String trimmed = text.strip();
		int space = trimmed.indexOf(' ');
		String id = space < 0 ? trimmed : trimmed.substring(0, space);
		if (!ObjectId.isId(id)) {
			return null;
		}
		return new Head(id, space < 0 ? null : trimmed.substring(space + 1));
	}
}
