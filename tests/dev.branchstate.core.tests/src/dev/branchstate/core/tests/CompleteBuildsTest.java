package dev.branchstate.core.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.ResourcesPlugin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.branchstate.core.internal.service.CompleteBuilds;

/**
 * Which projects a state holds when some builds are not complete, on real workspace projects and their project
 * references: the incomplete ones and every project that reads one of them, directly, through another or from
 * outside the repository, are left out with a reason; the others are kept, in order.
 */
class CompleteBuildsTest {

	private final List<IProject> created = new ArrayList<>();

	@AfterEach
	void tearDown() throws Exception {
		for (IProject project : created) {
			project.delete(true, true, null);
		}
	}

	@Test
	void aProjectWhoseBuildIsNotCompleteIsLeftOutWithEveryProjectThatReadsIt() throws Exception {
		String p = "cb" + System.nanoTime() + "-";
		IProject outside = project(p + "outside");
		IProject broken = project(p + "broken");
		IProject reader = project(p + "reader", broken);
		IProject second = project(p + "second", reader);
		IProject fine = project(p + "fine");
		IProject usesFine = project(p + "usesFine", fine);
		IProject usesOutside = project(p + "usesOutside", outside);
		// in the repository's order, readers before what they read
		List<IProject> repository = List.of(second, usesFine, reader, fine, broken, usesOutside);

		CompleteBuilds.Split split = CompleteBuilds.split(repository,
				project -> project.equals(broken) || project.equals(outside) ? Optional.of("its build failed")
						: Optional.empty());

		assertThat(split.complete()).containsExactly(usesFine, fine);
		assertThat(split.leftOut()).containsOnlyKeys(broken, reader, second, usesOutside)
				.containsEntry(broken, "its build failed")
				.containsEntry(reader, "it reads project '" + broken.getName() + "', whose build is not complete")
				.containsEntry(second, "it reads project '" + reader.getName() + "', whose build is not complete")
				.containsEntry(usesOutside,
						"it reads project '" + outside.getName() + "', whose build is not complete");
		assertThat(split.describeLeftOut()).startsWith("'" + broken.getName() + "': its build failed; ");
	}

	@Test
	void everyProjectIsKeptWhenEveryBuildIsComplete() throws Exception {
		String p = "cb" + System.nanoTime() + "-";
		IProject a = project(p + "a");
		IProject b = project(p + "b", a);
		CompleteBuilds.Split split = CompleteBuilds.split(List.of(a, b), project -> Optional.empty());
		assertThat(split.complete()).containsExactly(a, b);
		assertThat(split.leftOut()).isEqualTo(Map.of());
	}

	/** @return a new open project referencing {@code reads} (static project references) */
	private IProject project(String name, IProject... reads) throws Exception {
		IWorkspace workspace = ResourcesPlugin.getWorkspace();
		IProject project = workspace.getRoot().getProject(name);
		IProjectDescription description = workspace.newProjectDescription(name);
		description.setReferencedProjects(reads);
		project.create(description, null);
		project.open(null);
		created.add(project);
		assertThat(project.getReferencedProjects()).containsExactly(reads);
		return project;
	}
}
