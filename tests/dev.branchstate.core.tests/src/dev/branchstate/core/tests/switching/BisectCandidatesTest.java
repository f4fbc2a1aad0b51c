package dev.branchstate.core.tests.switching;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.eclipse.jgit.api.MergeCommand.FastForwardMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevWalk;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.core.internal.prefetch.BisectCandidates;

/**
 * The commits the prefetch expects a {@code git bisect} to check out next, against git itself: a history with a
 * branch merged in the middle, bisected with the git command line once for every commit of the range as the first
 * bad one. Before each verdict the candidates for it are read; the commit git then checks out must be one of them,
 * and when git checks out nothing more (it found the first bad commit) there must be none.
 */
class BisectCandidatesTest {

	@TempDir
	Path temp;

	private GitFixture repo;
	private final List<String> range = new ArrayList<>();
	private String good;
	private String bad;
	private int time;

	@BeforeEach
	void setUp() throws Exception {
		repo = GitFixture.create(temp.resolve("repo"), Map.of("f.txt", "0\n"));
		good = head();
		for (int i = 1; i <= 4; i++) {
			range.add(commit("main.txt", "main " + i));
		}
		repo.git.checkout().setCreateBranch(true).setName("side").setStartPoint(good).call();
		for (int i = 1; i <= 4; i++) {
			range.add(commit("side.txt", "side " + i));
		}
		repo.git.checkout().setName("main").call();
		repo.git.merge().include(repo.git.getRepository().resolve("side")).setFastForward(FastForwardMode.NO_FF)
				.setCommit(false).call();
		range.add(commit(null, "merge side"));
		for (int i = 5; i <= 8; i++) {
			range.add(commit("main.txt", "main " + i));
		}
		bad = head();
	}

	@AfterEach
	void tearDown() {
		repo.close();
	}

	@Test
	void gitChecksOutOneOfTheCandidatesOfEachVerdictAndNothingWhenThereAreNone() throws Exception {
		int steps = 0;
		for (String firstBad : range) {
			repo.cli("bisect", "start", bad, good);
			try {
				while (true) {
					String tested = head();
					boolean isBad = contains(tested, firstBad);
					Map<String, ObjectId> next = BisectCandidates.of(repo.git.getRepository());
					Set<String> predicted = next.entrySet().stream()
							.filter(e -> e.getKey().contains(isBad ? " bad " : " good "))
							.map(e -> e.getValue().name()).collect(Collectors.toSet());
					repo.cli("bisect", isBad ? "bad" : "good");
					steps++;
					String after = head();
					if (after.equals(tested)) {
						assertThat(predicted).as("git found the first bad commit %s: nothing is checked out next",
								firstBad).isEmpty();
						assertThat(Files.readString(repo.gitDir().toPath().resolve("refs/bisect/bad")).strip())
								.as("the first bad commit git found").isEqualTo(firstBad);
						break;
					}
					assertThat(predicted).as("candidates after %s is marked %s (first bad %s)", tested,
							isBad ? "bad" : "good", firstBad).contains(after);
				}
			} finally {
				repo.cli("bisect", "reset");
			}
		}
		assertThat(steps).as("verdicts given").isGreaterThan(range.size() * 3);
	}

	private boolean contains(String commit, String firstBad) throws Exception {
		Repository repository = repo.git.getRepository();
		try (RevWalk walk = new RevWalk(repository)) {
			return walk.isMergedInto(walk.parseCommit(ObjectId.fromString(firstBad)),
					walk.parseCommit(ObjectId.fromString(commit)));
		}
	}

	/**
	 * Commits a change of the file (none: what is staged, a merge) a minute after the last commit: git's order among
	 * candidates follows the dates.
	 */
	private String commit(String file, String message) throws Exception {
		if (file != null) {
			Files.writeString(repo.gitDir().toPath().getParent().resolve(file), message + "\n");
			repo.git.add().addFilepattern(file).call();
		}
		PersonIdent who = new PersonIdent("Bisect", "bisect@example.org",
				Instant.parse("2026-01-01T00:00:00Z").plusSeconds(60L * ++time), ZoneOffset.UTC);
		return repo.git.commit().setMessage(message).setAuthor(who).setCommitter(who).call().name();
	}

	private String head() throws Exception {
		return repo.git.getRepository().resolve("HEAD").name();
	}
}
