package dev.branchstate.core.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IFolder;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.IProgressMonitor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.core.IRestoreContext;
import dev.branchstate.core.RestoreResult;
import dev.branchstate.core.StateInfo;

/**
 * Several projects in one repository (in sub-folders), a derived folder named by the preference, and the exact
 * changed paths: commits between the state and HEAD plus dirty files, minus files whose content is what the state
 * was built from.
 */
class MultiProjectTest {

	@TempDir
	Path temp;

	@Test
	void projectsInSubFoldersAreSavedAndRestoredAndGetTheirOwnChangedPaths() throws Exception {
		try (Fixtures f = new Fixtures(temp, "multi" + System.nanoTime())) {
			f.write("libA/src/X.java", "class X {}\n");
			f.write("libA/src/Y.java", "class Y {}\n");
			f.write("libB/src/Z.java", "class Z {}\n");
			f.write(".gitignore", "bin/\ntarget/\n");
			IProject a = Fixtures.createProject(f.project.getName() + "-a", f.workTree.resolve("libA"));
			IProject b = Fixtures.createProject(f.project.getName() + "-b", f.workTree.resolve("libB"));
			f.register(() -> {
				a.delete(IResource.NEVER_DELETE_PROJECT_CONTENT | IResource.FORCE, null);
				b.delete(IResource.NEVER_DELETE_PROJECT_CONTENT | IResource.FORCE, null);
			});
			f.commit("two libraries");
			assertThat(f.service.projectsOf(f.gitDir())).contains(f.project, a, b);

			// libA: Eclipse-derived bin/; libB: target/ named by the preference, not marked derived
			Fixtures.setPreference(BranchstatePreferences.DERIVED_FOLDERS, "target");
			f.register(() -> Fixtures.setPreference(BranchstatePreferences.DERIVED_FOLDERS, null));
			byte[] ax = Fixtures.random(2000, 1);
			byte[] bz = Fixtures.random(3000, 2);
			f.write("libA/bin/X.class", ax);
			IFolder bin = a.getFolder("bin");
			bin.refreshLocal(IResource.DEPTH_INFINITE, null);
			bin.setDerived(true, null);
			f.write("libB/target/Z.class", bz);
			b.refreshLocal(IResource.DEPTH_INFINITE, null);
			// a dirty file at save time, left as it was
			f.write("libA/src/Y.java", "class Y { int dirtyAtSave; }\n");

			List<IPath>[] seen = recordChangedPaths(f, a.getName());
			StateInfo state = f.service.save(f.gitDir(), null);
			assertThat(state.dirtyPaths()).containsExactly("libA/src/Y.java");

			// move on: a new commit changes X.java, the derived output drifts
			f.write("libA/src/X.java", "class X { int v2; }\n");
			f.git.add().addFilepattern("libA/src/X.java").call();
			f.git.commit().setMessage("v2").setAuthor("t", "t@example.org").setCommitter("t", "t@example.org")
					.setOnly("libA/src/X.java").call();
			Files.write(f.workTree.resolve("libA/bin/X.class"), new byte[] { 1 });
			Files.delete(f.workTree.resolve("libB/target/Z.class"));
			Files.write(f.workTree.resolve("libB/target/stale.class"), new byte[] { 2 });
			f.project.refreshLocal(IResource.DEPTH_INFINITE, null);
			a.refreshLocal(IResource.DEPTH_INFINITE, null);
			b.refreshLocal(IResource.DEPTH_INFINITE, null);
			IFile y = a.getFile("src/Y.java");
			IFile x = a.getFile("src/X.java");
			long yStamp = y.getModificationStamp();
			long xStamp = x.getModificationStamp();

			RestoreResult result = f.service.restore(f.gitDir(), state.commitId(), null);

			assertThat(Files.readAllBytes(f.workTree.resolve("libA/bin/X.class"))).isEqualTo(ax);
			assertThat(Files.readAllBytes(f.workTree.resolve("libB/target/Z.class"))).isEqualTo(bz);
			assertThat(Fixtures.files(f.workTree.resolve("libB/target"))).containsExactly("Z.class");
			assertThat(b.getFolder("target").isDerived()).isTrue();
			// X.java changed since the state (new commit): handed over and touched; Y.java is still the dirty
			// content the state was built from: left alone
			assertThat(seen[0]).containsExactly(IPath.fromPortableString("src/X.java"));
			// X.java is a member of libA and of the project at the repository root (overlapping projects): both
			// see it change
			assertThat(result.changedSources()).isEqualTo(2);
			assertThat(x.getModificationStamp()).isNotEqualTo(xStamp);
			assertThat(y.getModificationStamp()).isEqualTo(yStamp);
		}
	}

	/** Registers a contributor that records the changed paths it is given for one project. */
	@SuppressWarnings("unchecked")
	private static List<IPath>[] recordChangedPaths(Fixtures f, String projectName) {
		List<IPath>[] seen = new List[] { List.of() };
		f.register(f.service.contributors().register("test.recorder", "records changed paths", 300,
				new StateServiceTest.TestContributor() {
					@Override
					public boolean appliesTo(IProject project) {
						return project.getName().equals(projectName);
					}

					@Override
					public void restore(IRestoreContext context, IProgressMonitor monitor) {
						seen[0] = List.copyOf(context.changedPaths());
					}
				}));
		return seen;
	}
}
