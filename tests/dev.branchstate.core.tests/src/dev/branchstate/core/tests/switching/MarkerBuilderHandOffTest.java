package dev.branchstate.core.tests.switching;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.runtime.CoreException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A builder whose whole output is problem markers (declared a marker builder, as PDE's manifest builder is by
 * Branchstate for Java) is handed the restored commit with JDT's builder: after an exact restore it validates
 * nothing, from a nearest ancestor only the files that differ from it, and its markers equal those a validation of
 * the working tree makes, line for line. Without a state, it validates the checkout's change.
 */
class MarkerBuilderHandOffTest {

	private static final Map<String, String> MAIN = Map.of( //
			"src/p/A1.java", "package p;\npublic class A1 {\n\t// TODO one\n\tprivate int unused;\n}\n",
			"src/p/A2.java", "package p;\npublic class A2 {\n\tA1 one; // TODO two\n}\n",
			"src/p/A3.java", "package p;\npublic class A3 {\n}\n");
	/** feat = main + X, A1 with another TODO. */
	private static final Map<String, String> FEAT = Map.of( //
			"src/p/X.java", "package p;\npublic class X {\n\t// TODO x\n}\n", //
			"src/p/A1.java", "package p;\npublic class A1 {\n\tprivate int unused; // TODO one, moved\n}\n");

	@TempDir
	Path temp;

	private SwitchHarness harness;
	private JavaRepository repo;
	private IProject project;

	@BeforeEach
	void setUp() throws Exception {
		harness = new SwitchHarness();
		repo = JavaRepository.create(temp.resolve("repo"), MAIN, List.of(TodoValidator.ID));
		repo.branch("feat", FEAT);
		repo.branch("feat2", Map.of("src/p/A3.java", "package p;\npublic class A3 {\n\t// TODO three\n}\n"));
		repo.git.checkout().setName("main").call();
	}

	@AfterEach
	void tearDown() throws Exception {
		repo.discard(harness, project);
		harness.autoBuild(true);
		harness.close();
	}

	@Test
	void aMarkerBuilderHandedTheRestoredCommitValidatesOnlyWhatDiffersFromIt() throws Exception {
		harness.autoBuild(true);
		project = repo.importProject();
		harness.manager().track();
		SwitchHarness.awaitQuiet();
		assertThat(TodoValidator.takeValidated()).as("the first build validates every source")
				.contains("src/p/A1.java", "src/p/A2.java", "src/p/A3.java");
		assertMarkersOfAValidation("main");

		repo.switchTo("feat", 0);
		assertThat(TodoValidator.takeValidated()).as("no state of feat: the checkout's change is validated")
				.contains("src/p/X.java", "src/p/A1.java");
		assertMarkersOfAValidation("feat");

		for (String branch : List.of("main", "feat", "main")) {
			TodoValidator.takeValidated();
			assertThat(repo.switchTo(branch, 0)).contains("restored");
			assertThat(TodoValidator.takeValidated()).as("files validated after the exact restore of " + branch)
					.isEmpty();
			assertMarkersOfAValidation(branch);
		}

		TodoValidator.takeValidated();
		assertThat(repo.switchTo("feat2", 0)).contains("restored");
		assertThat(TodoValidator.takeValidated()).as("after the state of feat, the nearest ancestor of feat2")
				.containsOnly("src/p/A3.java");
		assertMarkersOfAValidation("feat2");
	}

	/** The validator's markers equal those a validation of every source of the working tree makes. */
	private void assertMarkersOfAValidation(String branch) throws IOException, CoreException {
		assertThat(repo.git.getRepository().getBranch()).isEqualTo(branch);
		TreeSet<String> expected = new TreeSet<>();
		Path src = repo.workTree.resolve("src");
		try (var files = Files.walk(src)) {
			for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
				String path = repo.workTree.relativize(file).toString().replace('\\', '/');
				TodoValidator.expected(Files.readString(file, StandardCharsets.UTF_8))
						.forEach((line, text) -> expected.add(path + ":" + line + ": " + text));
			}
		}
		TreeSet<String> actual = new TreeSet<>();
		for (IMarker marker : project.findMarkers(TodoValidator.MARKER, false, IResource.DEPTH_INFINITE)) {
			actual.add(marker.getResource().getProjectRelativePath().toPortableString() + ":"
					+ marker.getAttribute(IMarker.LINE_NUMBER, -1) + ": " + marker.getAttribute(IMarker.MESSAGE, ""));
		}
		assertThat(actual).as("the validator's markers on " + branch).isEqualTo(expected).isNotEmpty();
	}
}
