package dev.branchstate.core.tests.switching;

import static dev.branchstate.core.tests.switching.SwitchProtocolTest.files;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateEvent.Kind;

/**
 * Which repositories are followed and how: several projects in one repository, several repositories, a nested
 * repository, a linked worktree ({@code .git} file).
 */
class RepositoryLayoutTest {

	@TempDir
	Path temp;

	private SwitchHarness harness;
	private final List<IProject> projects = new ArrayList<>();
	private final List<GitFixture> repos = new ArrayList<>();

	@BeforeEach
	void setUp() throws Exception {
		harness = new SwitchHarness();
		harness.autoBuild(true);
	}

	@AfterEach
	void tearDown() throws Exception {
		SwitchHarness.awaitQuiet();
		for (IProject project : projects) {
			if (project.exists()) {
				project.delete(false, true, null);
			}
		}
		repos.forEach(GitFixture::close);
		harness.close();
	}

	private IProject project(GitFixture repo, String folder) throws Exception {
		IProject project = repo.project(folder);
		projects.add(project);
		return project;
	}

	private GitFixture repo(Path dir, Map<String, String> files) throws Exception {
		GitFixture repo = GitFixture.create(dir, files);
		repos.add(repo);
		return repo;
	}

	private void settle() throws Exception {
		harness.manager().track();
		SwitchHarness.awaitQuiet();
		for (IProject project : projects) {
			RecordingBuilder.reset(project);
		}
	}

	@Test
	void severalProjectsInOneRepositoryAreSwitchedTogetherAndOtherRepositoriesAreLeftAlone() throws Exception {
		GitFixture first = repo(temp.resolve("first"), files("one/src/a.txt", "a\n", "two/src/b.txt", "b\nERROR\n"));
		first.branch("B", files("one/src/a.txt", "a on B\n", "two/src/b.txt", "b on B\n"));
		first.git.checkout().setName("main").call();
		GitFixture second = repo(temp.resolve("second"), files("src/x.txt", "x\n"));
		IProject one = project(first, "one");
		IProject two = project(first, "two");
		IProject other = project(second, "");
		settle();
		Map<String, byte[]> oneA = GitFixture.derived(one);
		Map<String, byte[]> twoA = GitFixture.derived(two);
		Map<String, byte[]> otherBefore = GitFixture.derived(other);
		var twoMarkersA = GitFixture.markers(two);
		assertThat(twoMarkersA).hasSize(1);

		checkout(first, "B", one, two);
		assertThat(RecordingBuilder.record(one)).containsExactly("compile src/a.txt");
		assertThat(RecordingBuilder.record(two)).containsExactly("compile src/b.txt");
		assertThat(GitFixture.markers(two)).isEmpty();
		settle();
		checkout(first, "main", one, two);

		assertThat(RecordingBuilder.record(one)).isEmpty();
		assertThat(RecordingBuilder.record(two)).isEmpty();
		SwitchProtocolTest.assertSameBytes(GitFixture.derived(one), oneA);
		SwitchProtocolTest.assertSameBytes(GitFixture.derived(two), twoA);
		assertThat(GitFixture.markers(two)).isEqualTo(twoMarkersA);
		List<StateEvent> events = harness.takeEvents(first.gitDir());
		assertThat(events).filteredOn(e -> e.kind() == Kind.RESTORED).hasSize(1);
		assertThat(harness.takeEvents(second.gitDir())).isEmpty();
		assertThat(RecordingBuilder.record(other)).isEmpty();
		SwitchProtocolTest.assertSameBytes(GitFixture.derived(other), otherBefore);
	}

	@Test
	void repositoriesAreFollowedWhileTheyHoldOpenProjects() throws Exception {
		GitFixture repo = repo(temp.resolve("followed"), files("src/a.txt", "a\n"));
		repo.branch("B", files("src/a.txt", "a on B\n"));
		repo.git.checkout().setName("main").call();
		IProject project = project(repo, "");
		settle();
		assertThat(harness.manager().repositories()).anyMatch(d -> SwitchHarness.same(d, repo.gitDir()));

		project.close(null);
		SwitchHarness.awaitQuiet();
		harness.manager().track();
		assertThat(harness.manager().repositories()).noneMatch(d -> SwitchHarness.same(d, repo.gitDir()));
		repo.git.checkout().setName("B").call();
		SwitchHarness.awaitQuiet();
		assertThat(harness.takeEvents(repo.gitDir())).as("a closed project's repository is not followed").isEmpty();

		project.open(null);
		harness.manager().track();
		assertThat(harness.manager().repositories()).anyMatch(d -> SwitchHarness.same(d, repo.gitDir()));
		SwitchHarness.awaitQuiet();
		// HEAD moved while the project was closed: a switch at reopening, whose derived data is of unknown origin
		assertThat(harness.takeEvents(repo.gitDir())).anyMatch(e -> e.kind() == Kind.SKIPPED
				&& e.message().contains("HEAD moved while Eclipse was closed"));
		String main = repo.git.getRepository().resolve("refs/heads/main").name();
		repo.git.checkout().setName("main").call();
		project.refreshLocal(IResource.DEPTH_INFINITE, null);
		SwitchHarness.awaitQuiet();
		assertThat(harness.takeEvents(repo.gitDir())).as("the switch back to main is handled")
				.anyMatch(e -> main.equals(e.commitId()));
	}

	@Test
	void aNestedRepositoryIsFollowedOnItsOwn() throws Exception {
		GitFixture outer = repo(temp.resolve("outer"), files("src/o.txt", "o\n"));
		GitFixture inner = repo(temp.resolve("outer/inner"), files("src/i.txt", "i\n"));
		inner.branch("B", files("src/i.txt", "i on B\n"));
		inner.git.checkout().setName("main").call();
		IProject outerProject = project(outer, "");
		IProject innerProject = project(inner, "");
		settle();
		assertThat(harness.manager().repositories()).anyMatch(d -> SwitchHarness.same(d, inner.gitDir()))
				.anyMatch(d -> SwitchHarness.same(d, outer.gitDir()));
		Map<String, byte[]> innerA = GitFixture.derived(innerProject);

		checkout(inner, "B", innerProject);
		settle();
		checkout(inner, "main", innerProject);

		assertThat(RecordingBuilder.record(innerProject)).isEmpty();
		SwitchProtocolTest.assertSameBytes(GitFixture.derived(innerProject), innerA);
		assertThat(harness.takeEvents(inner.gitDir())).anyMatch(e -> e.kind() == Kind.RESTORED);
		assertThat(harness.takeEvents(outer.gitDir())).isEmpty();
		assertThat(RecordingBuilder.record(outerProject)).isEmpty();
	}

	@Test
	void aLinkedWorktreeIsFollowedThroughItsOwnGitDirectory() throws Exception {
		GitFixture main = repo(temp.resolve("main"), files("src/a.txt", "a\n", "src/b.txt", "b\n"));
		main.branch("side", files("src/a.txt", "a on side\nERROR\n"));
		main.git.checkout().setName("main").call();
		main.cli("branch", "other", "main");
		Path worktree = temp.resolve("wt");
		main.cli("worktree", "add", "-q", worktree.toString(), "side");
		GitFixture linked = new GitFixture(worktree, org.eclipse.jgit.api.Git.wrap(
				new FileRepositoryBuilder().findGitDir(worktree.toFile()).setMustExist(true).build()));
		repos.add(linked);
		File gitDir = linked.gitDir();
		assertThat(gitDir.toPath()).endsWith(Path.of(".git", "worktrees", "wt"));
		IProject project = project(linked, "");
		settle();
		Map<String, byte[]> derivedSide = GitFixture.derived(project);
		var markersSide = GitFixture.markers(project);
		String side = linked.git.getRepository().resolve("HEAD").name();

		linked.cli("checkout", "-q", "other");
		project.refreshLocal(IResource.DEPTH_INFINITE, null);
		SwitchHarness.awaitQuiet();
		assertThat(RecordingBuilder.record(project)).containsExactly("compile src/a.txt");
		assertThat(harness.takeEvents(gitDir)).filteredOn(e -> e.kind() == Kind.SAVED).singleElement()
				.satisfies(e -> {
					assertThat(e.commitId()).isEqualTo(side);
					assertThat(e.branch()).isEqualTo("side");
				});
		settle();

		linked.cli("checkout", "-q", "side");
		project.refreshLocal(IResource.DEPTH_INFINITE, null);
		SwitchHarness.awaitQuiet();
		assertThat(RecordingBuilder.record(project)).isEmpty();
		SwitchProtocolTest.assertSameBytes(GitFixture.derived(project), derivedSide);
		assertThat(GitFixture.markers(project)).isEqualTo(markersSide);
		assertThat(harness.takeEvents(gitDir)).filteredOn(e -> e.kind() == Kind.RESTORED).singleElement()
				.satisfies(e -> assertThat(e.commitId()).isEqualTo(side));
	}

	private static void checkout(GitFixture repo, String branch, IProject... projects) throws Exception {
		repo.git.checkout().setName(branch).call();
		for (IProject project : projects) {
			project.refreshLocal(IResource.DEPTH_INFINITE, null);
		}
		SwitchHarness.awaitQuiet();
	}
}
