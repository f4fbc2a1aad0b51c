package dev.branchstate.core.internal.prefetch;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevSort;
import org.eclipse.jgit.revwalk.RevWalk;

/**
 * The commits a {@code git bisect} in progress checks out next: once the commit at HEAD is marked good, and once it is
 * marked bad. Git checks out a commit of the remaining range that is reachable from about half of it ({@code 2w - n}
 * of -1, 0 or 1, where {@code w} counts the range's commits the commit reaches, itself included, and {@code n} the
 * range's size); where several qualify, the first two in Git's topological order are taken. Read from the refs of the
 * bisect ({@code refs/bisect/bad}, {@code refs/bisect/good-*}, or the terms of {@code BISECT_TERMS}); the range is
 * walked only while it has at most {@value #MAX_RANGE} commits, which keeps this cheap.
 */
public final class BisectCandidates {

	/** The refs of a bisect in progress. */
	static final String REFS = Constants.R_REFS + "bisect/"; //$NON-NLS-1$
	/** Commits of the remaining range walked at most. */
	private static final int MAX_RANGE = 4096;
	private static final int PER_VERDICT = 2;

	private BisectCandidates() {
	}

	/**
	 * @return name → commit of the next candidates, named {@code bisect: HEAD good 1} and so on; empty when no bisect
	 *         is in progress, HEAD is not in its range, or the range is too long
	 */
	public static Map<String, ObjectId> of(Repository repository) throws IOException {
		String[] terms = terms(repository.getDirectory());
		Ref bad = repository.exactRef(REFS + terms[0]);
		List<Ref> goods = repository.getRefDatabase().getRefsByPrefix(REFS + terms[1] + '-');
		ObjectId head = repository.resolve(Constants.HEAD);
		if (bad == null || bad.getObjectId() == null || goods.isEmpty() || head == null) {
			return Map.of();
		}
		try (RevWalk walk = new RevWalk(repository)) {
			walk.sort(RevSort.TOPO);
			walk.markStart(walk.parseCommit(bad.getObjectId()));
			for (Ref good : goods) {
				walk.markUninteresting(walk.parseCommit(good.getObjectId()));
			}
			List<RevCommit> range = new ArrayList<>();
			for (RevCommit commit : walk) {
				if (range.size() == MAX_RANGE) {
					return Map.of();
				}
				range.add(commit);
			}
			Map<ObjectId, Integer> index = new HashMap<>();
			for (int i = 0; i < range.size(); i++) {
				index.put(range.get(i), Integer.valueOf(i));
			}
			Integer current = index.get(head);
			if (current == null) {
				return Map.of();
			}
			BitSet[] reaches = reaches(range, index);
			BitSet ifGood = new BitSet();
			ifGood.set(0, range.size());
			ifGood.andNot(reaches[current.intValue()]);
			Map<String, ObjectId> next = new LinkedHashMap<>();
			name(next, "good", halfway(range, reaches, ifGood)); //$NON-NLS-1$
			name(next, "bad", halfway(range, reaches, reaches[current.intValue()])); //$NON-NLS-1$
			return next;
		}
	}

	/** @return the bad and good terms ({@code git bisect start --term-new/--term-old}), by default bad and good */
	private static String[] terms(File gitDir) {
		try {
			Path file = gitDir.toPath().resolve("BISECT_TERMS"); //$NON-NLS-1$
			List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
			if (lines.size() >= 2 && !lines.get(0).isBlank() && !lines.get(1).isBlank()) {
				return new String[] { lines.get(0).strip(), lines.get(1).strip() };
			}
		} catch (IOException e) {
			// no such file before Git 2.7, or no custom terms
		}
		return new String[] { "bad", "good" }; //$NON-NLS-1$ //$NON-NLS-2$
	}

	/** @return per commit of the range (children before parents), the commits of the range it reaches, itself included */
	private static BitSet[] reaches(List<RevCommit> range, Map<ObjectId, Integer> index) {
		BitSet[] reaches = new BitSet[range.size()];
		for (int i = range.size() - 1; i >= 0; i--) {
			BitSet set = new BitSet();
			set.set(i);
			for (RevCommit parent : range.get(i).getParents()) {
				Integer p = index.get(parent);
				if (p != null) {
					set.or(reaches[p.intValue()]);
				}
			}
			reaches[i] = set;
		}
		return reaches;
	}

	/** @return the commits of {@code remaining} about halfway through it, at most {@value #PER_VERDICT} */
	private static List<RevCommit> halfway(List<RevCommit> range, BitSet[] reaches, BitSet remaining) {
		int n = remaining.cardinality();
		List<RevCommit> result = new ArrayList<>();
		if (n < 2) {
			return result; // the bisect ends: nothing more is checked out
		}
		for (int i = remaining.nextSetBit(0); i >= 0 && result.size() < PER_VERDICT; i = remaining.nextSetBit(i + 1)) {
			BitSet within = (BitSet) reaches[i].clone();
			within.and(remaining);
			int diff = 2 * within.cardinality() - n;
			if (diff >= -1 && diff <= 1) {
				result.add(range.get(i));
			}
		}
		return result;
	}

	private static void name(Map<String, ObjectId> next, String verdict, List<RevCommit> commits) {
		for (int i = 0; i < commits.size(); i++) {
			next.put("bisect: HEAD " + verdict + ' ' + (i + 1), commits.get(i)); //$NON-NLS-1$
		}
	}
}
