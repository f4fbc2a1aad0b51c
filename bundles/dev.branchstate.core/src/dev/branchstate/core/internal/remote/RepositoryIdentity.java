package dev.branchstate.core.internal.remote;

import java.io.File;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;

/**
 * The name of a repository that every clone of it shares, unlike the local path the catalog keys states by: the value
 * configured for its projects (preference {@code remoteRepositoryId}, in a project's settings so that the team shares
 * it through Git), else {@code root-} and the root commit that HEAD's first-parent chain ends at. The root commit is
 * the same in every clone and in CI, whatever the remote's URL looks like there.
 */
public final class RepositoryIdentity {

	private static final Map<File, ObjectId> ROOTS = new ConcurrentHashMap<>();

	private RepositoryIdentity() {
	}

	/**
	 * @param configured the configured identity, if any
	 * @throws IllegalArgumentException when the configured value cannot be part of an object key
	 */
	public static String of(Repository repository, Optional<String> configured) throws IOException {
		if (configured.isPresent() && !configured.get().isBlank()) {
			String id = configured.get().trim();
			if (!id.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,99}")) { //$NON-NLS-1$
				throw new IllegalArgumentException("the repository identity '" + id //$NON-NLS-1$
						+ "' may hold only letters, digits, '.', '_' and '-' (at most 100)"); //$NON-NLS-1$
			}
			return id;
		}
		return "root-" + root(repository).name(); //$NON-NLS-1$
	}

	private static ObjectId root(Repository repository) throws IOException {
		File key = repository.getDirectory().getAbsoluteFile();
		ObjectId known = ROOTS.get(key);
		if (known != null && repository.getObjectDatabase().has(known)) {
			return known;
		}
		ObjectId head = repository.resolve(Constants.HEAD);
		if (head == null) {
			throw new IOException(repository.getDirectory() + ": HEAD names no commit"); //$NON-NLS-1$
		}
		try (RevWalk walk = new RevWalk(repository)) {
			walk.setFirstParent(true);
			walk.setRetainBody(false);
			walk.markStart(walk.parseCommit(head));
			RevCommit last = null;
			for (RevCommit c : walk) {
				last = c;
			}
			ObjectId root = last.copy();
			ROOTS.put(key, root);
			return root;
		}
	}
}
