package dev.branchstate.core.internal.service;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.Status;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.PathFilterGroup;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

/**
 * Repository-relative paths whose content in the working tree differs from what a state was built from.
 * <p>
 * What a state was built from: the tree of its commit, except for the files that were dirty when it was saved,
 * whose content ids (Git blob ids of the raw bytes, or "absent") the state records. Candidates are the files that
 * differ between the state's commit and HEAD, the files dirty now and the files dirty at save; a candidate is
 * changed when its content now differs from what the state was built from. The content of a file Git reports clean
 * is HEAD's blob; dirty files are read and hashed as raw bytes, so with clean/smudge filters or line-ending
 * conversion a dirty file may count as changed when it is not, never the reverse.
 */
public final class ChangedPaths {

	/** Content id of a path that does not exist. */
	static final String ABSENT = "-"; //$NON-NLS-1$

	private ChangedPaths() {
	}

	/**
	 * @param dirtyAtSave path → content id at save time ({@link #ABSENT} for a deleted file)
	 * @param dirtyNow    the paths dirty in the working tree now ({@link #dirty})
	 */
	static Set<String> compute(Repository repository, String stateCommit, Map<String, String> dirtyAtSave,
			Set<String> dirtyNow) throws IOException {
		ObjectId head = repository.resolve(Constants.HEAD);
		ObjectId state = ObjectId.fromString(stateCommit);
		// one walk over the two trees gives, for every path that differs, its blob in the state's commit and in HEAD
		Map<String, String> inState = new HashMap<>();
		Map<String, String> inHead = new HashMap<>();
		Set<String> others = new TreeSet<>(dirtyNow);
		others.addAll(dirtyAtSave.keySet());
		try (RevWalk walk = new RevWalk(repository)) {
			RevCommit stateCommitObject = walk.parseCommit(state);
			if (head != null && !head.equals(state)) {
				try (TreeWalk tw = new TreeWalk(repository)) {
					tw.addTree(stateCommitObject.getTree());
					tw.addTree(walk.parseCommit(head).getTree());
					tw.setRecursive(true);
					tw.setFilter(TreeFilter.ANY_DIFF);
					while (tw.next()) {
						String path = tw.getPathString();
						inState.put(path, blob(tw, 0));
						inHead.put(path, blob(tw, 1));
						others.remove(path);
					}
				}
			}
			// the other candidates are the same in both trees: one more walk, limited to them
			if (!others.isEmpty()) {
				try (TreeWalk tw = new TreeWalk(repository)) {
					tw.addTree(stateCommitObject.getTree());
					tw.setRecursive(true);
					tw.setFilter(PathFilterGroup.createFromStrings(others));
					while (tw.next()) {
						if (others.contains(tw.getPathString())) {
							inState.put(tw.getPathString(), blob(tw, 0));
							inHead.put(tw.getPathString(), blob(tw, 0));
						}
					}
				}
				for (String path : others) {
					inState.putIfAbsent(path, ABSENT);
					inHead.putIfAbsent(path, ABSENT);
				}
			}
		}
		Set<String> candidates = new TreeSet<>(inState.keySet());
		Set<String> result = new TreeSet<>();
		File workTree = repository.getWorkTree();
		for (String path : candidates) {
			String built = dirtyAtSave.containsKey(path) ? dirtyAtSave.get(path) : inState.get(path);
			// a file Git calls clean holds HEAD's blob: only dirty files are read and hashed
			String now = dirtyNow.contains(path) ? contentId(workTree, path) : inHead.get(path);
			if (!Objects.equals(built, now)) {
				result.add(path);
			}
		}
		return result;
	}

	private static String blob(TreeWalk tw, int tree) {
		return tw.getRawMode(tree) == 0 ? ABSENT : tw.getObjectId(tree).name();
	}

	/**
	 * What builders would have to redo to bring the derived data of a build of {@code commit} up to the working tree:
	 * the number of files whose content now differs from that commit's tree, except for {@code dirtyAtSave}, whose
	 * content at the build is unknown and which count as differing.
	 *
	 * @param dirtyNow the paths dirty in the working tree now ({@link #dirty})
	 */
	public static int countDiffering(Repository repository, String commit, Collection<String> dirtyAtSave,
			Set<String> dirtyNow) throws IOException {
		return compute(repository, commit, unknownContent(dirtyAtSave), dirtyNow).size();
	}

	/** @return the paths dirty in the working tree now (ignored files excluded) */
	public static Set<String> dirty(Repository repository) throws IOException {
		try {
			Status status = Git.wrap(repository).status().call();
			Set<String> result = new TreeSet<>();
			result.addAll(status.getModified());
			result.addAll(status.getChanged());
			result.addAll(status.getAdded());
			result.addAll(status.getRemoved());
			result.addAll(status.getMissing());
			result.addAll(status.getUntracked());
			result.addAll(status.getConflicting());
			return result;
		} catch (GitAPIException e) {
			throw new IOException(e.getMessage(), e);
		}
	}

	/** @return path → content id now, for the given paths */
	static Map<String, String> contentIds(Repository repository, Collection<String> paths) throws IOException {
		Map<String, String> result = new TreeMap<>();
		for (String path : paths) {
			result.put(path, contentId(repository.getWorkTree(), path));
		}
		return result;
	}

	/** @return the Git blob id of the file's raw bytes, or {@link #ABSENT} */
	static String contentId(File workTree, String path) throws IOException {
		Path file = workTree.toPath().resolve(path);
		if (Files.isSymbolicLink(file)) {
			byte[] target = Files.readSymbolicLink(file).toString().getBytes(StandardCharsets.UTF_8);
			return new ObjectInserter.Formatter().idFor(Constants.OBJ_BLOB, target).name();
		}
		if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
			return ABSENT;
		}
		return new ObjectInserter.Formatter().idFor(Constants.OBJ_BLOB, Files.readAllBytes(file)).name();
	}

	/** @return the paths with a content id that matches nothing: each counts as changed */
	static Map<String, String> unknownContent(Collection<String> paths) {
		Map<String, String> result = new TreeMap<>();
		paths.forEach(p -> result.put(p, "?")); //$NON-NLS-1$
		return result;
	}

	/** Encodes path → content id as lines {@code id<TAB>path}. */
	static byte[] encode(Map<String, String> ids) {
		StringBuilder b = new StringBuilder();
		ids.forEach((path, id) -> b.append(id).append('\t').append(path).append('\n'));
		return b.toString().getBytes(StandardCharsets.UTF_8);
	}

	static Map<String, String> decode(byte[] bytes) throws IOException {
		Map<String, String> result = new TreeMap<>();
		for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) { //$NON-NLS-1$
			if (line.isEmpty()) {
				continue;
			}
			int tab = line.indexOf('\t');
			if (tab <= 0) {
				throw new IOException("invalid dirty path line in state: " + line); //$NON-NLS-1$
			}
			result.put(line.substring(tab + 1), line.substring(0, tab));
		}
		return result;
	}
}
