package dev.branchstate.core.tests.switching;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.jdt.core.IJavaElement;
import org.eclipse.jdt.core.IJavaModelMarker;
import org.eclipse.jdt.core.IJavaProject;
import org.eclipse.jdt.core.JavaCore;
import org.eclipse.jdt.core.search.IJavaSearchConstants;
import org.eclipse.jdt.core.search.IJavaSearchScope;
import org.eclipse.jdt.core.search.SearchEngine;
import org.eclipse.jdt.core.search.SearchMatch;
import org.eclipse.jdt.core.search.SearchParticipant;
import org.eclipse.jdt.core.search.SearchPattern;
import org.eclipse.jdt.core.search.SearchRequestor;
import org.eclipse.jdt.core.search.TypeNameRequestor;
import org.eclipse.jdt.internal.core.JavaModelManager;
import org.eclipse.jdt.internal.core.search.indexing.IndexManager;
import org.eclipse.jdt.internal.core.search.processing.IJob;
import org.eclipse.jdt.internal.core.search.processing.JobManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.service.StateService;

/**
 * Branch switches of a Java project with JDT's search index restored ({@code dev.branchstate.jdt.index}): after
 * every switch, JDT's search answers (every type name of the project, references to a method and to types, method
 * and type declarations, a secondary type) equal those of a copy of the working tree that JDT indexed from scratch,
 * and after an exact restore JDT's indexer has nothing queued for the checkout's change.
 */
class JdtIndexSwitchTest {

	private static final AtomicInteger NAMES = new AtomicInteger();
	private static final String INDEX = "dev.branchstate.jdt.index";

	/** main: A2 and R call A1.one(), A4 and R use A3; q.Q uses A1. */
	private static final Map<String, String> MAIN = Map.of( //
			"src/p/A1.java", "package p;\npublic class A1 {\n\tpublic int one() { return 1; }\n}\n",
			"src/p/A2.java", "package p;\npublic class A2 {\n\tint two() { return new A1().one() + 1; }\n}\n",
			"src/p/A3.java", "package p;\npublic class A3 {\n\tint three() { return 3; }\n}\n",
			"src/p/A4.java", "package p;\npublic class A4 {\n\tA3 three;\n}\n",
			"src/p/R.java", "package p;\npublic class R {\n\tA3 r;\n\tint r() { return new A1().one(); }\n}\n",
			"src/q/Q.java", "package q;\npublic class Q {\n\tp.A1 a;\n}\n");
	/** feat: X added (with the secondary type XS), R removed, A4 now calls A1.one(), A3's method renamed. */
	private static final Map<String, String> FEAT = new HashMap<>();
	static {
		FEAT.put("src/p/X.java", "package p;\npublic class X {\n\tA2 two;\n\tint x() { return new A1().one(); }\n}\n"
				+ "class XS {\n\tA3 s;\n}\n");
		FEAT.put("src/p/R.java", null);
		FEAT.put("src/p/A4.java", "package p;\npublic class A4 {\n\tA1 one;\n\tint four() { return one.one() + 3; }\n}\n");
		FEAT.put("src/p/A3.java", "package p;\npublic class A3 {\n\tint drei() { return 3; }\n}\n");
	}

	@TempDir
	Path temp;

	private SwitchHarness harness;
	private JavaRepository repo;
	private IProject project;

	@BeforeEach
	void setUp() throws Exception {
		harness = new SwitchHarness();
		repo = JavaRepository.create(temp.resolve("repo"), MAIN);
		repo.branch("feat", FEAT);
		repo.git.checkout().setName("main").call();
	}

	@AfterEach
	void tearDown() throws Exception {
		repo.discard(harness, project);
		harness.close();
	}

	/**
	 * main → feat → main → feat: the first switch has no state of feat (JDT indexes the checkout's change), every
	 * later one restores the exact state with its index. JDT's queue is held during each switch, so what it queued
	 * for the project is counted: nothing after an exact restore.
	 */
	@Test
	void exactRestoresLeaveSearchEqualToAFreshIndexAndNothingToIndex() throws Exception {
		importAndBuild();
		assertSearchEqualsAFreshIndex("main");

		Switched first = switchTo("feat");
		assertThat(first.queued).as("no state of feat: JDT indexes the checkout's change; " + first.output)
				.isGreaterThanOrEqualTo(3);
		assertSearchEqualsAFreshIndex("feat");
		for (String branch : List.of("main", "feat", "main", "feat")) {
			Switched switched = switchTo(branch);
			assertThat(switched.output).contains("RESTORED");
			assertThat(switched.queued).as("index jobs queued after the exact restore of " + branch + ": "
					+ switched.output).isZero();
			assertSearchEqualsAFreshIndex(branch);
		}
		System.out.println("JdtIndexSwitchTest: index jobs queued by the first switch (no state): " + first.queued);
	}

	/**
	 * A source file with a compile error on both branches (real workspaces have some): its JDT error marker is the
	 * same in both states, and a restore leaves it in place (the branches' markers differ by a warning, so the restore
	 * does change the project's markers). Removed and added again, it would have JDT index the file
	 * again (JDT indexes every source whose JDT error marker is removed), behind every exact restore.
	 */
	@Test
	void anExactRestoreLeavesAnUnchangedErrorMarkerInPlaceAndNothingToIndex() throws Exception {
		repo.close();
		Map<String, String> main = new HashMap<>(MAIN);
		main.put("src/p/Broken.java", "package p;\npublic class Broken {\n\tMissing missing;\n}\n");
		Map<String, String> feat = new HashMap<>(FEAT); // and a warning: the markers of the branches differ
		feat.put("src/p/A4.java", FEAT.get("src/p/A4.java").replace("\tA1 one;", "\tA1 one;\n\tprivate int unused;"));
		repo = JavaRepository.create(temp.resolve("repo-broken"), main);
		repo.branch("feat", feat);
		repo.git.checkout().setName("main").call();
		importAndBuild();
		assertThat(errorMarkerIds()).as("JDT's error on Broken.java").hasSize(1);

		switchTo("feat"); // no state of feat yet: JDT builds and indexes the checkout's change
		Set<Long> onFeat = errorMarkerIds();
		for (String branch : List.of("main", "feat")) {
			Switched switched = switchTo(branch);
			assertThat(switched.output).contains("RESTORED");
			assertThat(switched.queued).as("index jobs queued after the exact restore of " + branch + ": "
					+ switched.output).isZero();
			assertThat(errorMarkerIds()).as("the error marker of Broken.java, unchanged, left in place").isEqualTo(onFeat);
			assertSearchEqualsAFreshIndex(branch);
		}
	}

	/**
	 * A source file whose compile error the checkout changes: the restore replaces the JDT error marker of the branch
	 * left by the state's, and JDT indexes again every source whose JDT error marker is removed. The restored index
	 * already holds the file as the state's commit has it, so nothing may be left to index after the exact restore (in
	 * a committer's workspace, some 40 such files cost a second of indexing behind each switch).
	 */
	@Test
	void anExactRestoreQueuesNoIndexJobForAFileWhoseCompileErrorTheCheckoutChanged() throws Exception {
		repo.close();
		Map<String, String> main = new HashMap<>(MAIN);
		main.put("src/p/Broken.java", "package p;\npublic class Broken {\n\tMissing missing;\n}\n");
		Map<String, String> feat = new HashMap<>(FEAT);
		feat.put("src/p/Broken.java", "package p;\npublic class Broken {\n\tAbsent absent;\n\tA1 one;\n}\n");
		repo = JavaRepository.create(temp.resolve("repo-errors"), main);
		repo.branch("feat", feat);
		repo.git.checkout().setName("main").call();
		importAndBuild();

		String indexFile = JavaModelManager.getIndexManager().computeIndexLocation(project.getFullPath()).fileName();

		switchTo("feat"); // no state of feat yet: JDT builds and indexes the checkout's change
		for (String branch : List.of("main", "feat", "main")) {
			Switched switched = switchTo(branch);
			assertThat(switched.output).contains("RESTORED");
			assertThat(errorMarkers()).as("the error of Broken.java on " + branch).singleElement()
					.satisfies(m -> assertThat(m.getAttribute(IMarker.MESSAGE, ""))
							.contains(branch.equals("main") ? "Missing" : "Absent"));
			assertThat(switched.queued).as("index jobs queued after the exact restore of " + branch + ": "
					+ switched.output).isZero();
			// JDT's requests set the index's state to "updating" when queued: without them it is saved again, or the
			// next session would not know it and index the project from scratch
			assertThat(savedIndexNamesWritten()).as("JDT's saved indexes after the restore of " + branch)
					.contains(indexFile);
			assertSearchEqualsAFreshIndex(branch);
		}
	}

	/** @return the ids of the JDT error markers on the project's sources */
	private Set<Long> errorMarkerIds() throws CoreException {
		Set<Long> ids = new HashSet<>();
		for (IMarker marker : errorMarkers()) {
			ids.add(Long.valueOf(marker.getId()));
		}
		return ids;
	}

	/** @return the JDT error markers on the project's sources */
	private List<IMarker> errorMarkers() throws CoreException {
		return List.of(project.findMarkers(IJavaModelMarker.JAVA_MODEL_PROBLEM_MARKER, false, IResource.DEPTH_INFINITE))
				.stream().filter(m -> m.getAttribute(IMarker.SEVERITY, 0) == IMarker.SEVERITY_ERROR).toList();
	}

	/**
	 * feat2 = feat + a commit renaming the secondary type XS to XT and changing A4's references: the state of feat
	 * is the nearest ancestor; JDT indexes only the two files that differ from it.
	 */
	@Test
	void aNearestAncestorLeavesSearchEqualToAFreshIndex() throws Exception {
		repo.git.checkout().setName("feat").call();
		repo.branch("feat2", Map.of( //
				"src/p/X.java", "package p;\npublic class X {\n\tA2 two;\n\tint x() { return new A1().one(); }\n}\n"
						+ "class XT {\n\tA1 t;\n}\n",
				"src/p/A4.java", "package p;\npublic class A4 {\n\tA3 three;\n\tint four() { return 4; }\n}\n"));
		repo.git.checkout().setName("main").call();
		importAndBuild();
		switchTo("feat"); // saves main
		assertSearchEqualsAFreshIndex("feat");
		switchTo("main"); // saves feat, restores main
		assertSearchEqualsAFreshIndex("main");

		Switched switched = switchTo("feat2");
		assertThat(switched.output).contains("RESTORED");
		assertThat(switched.queued).as("index jobs after the state of feat and the replay: " + switched.output)
				.isBetween(1, 4);
		assertSearchEqualsAFreshIndex("feat2");
		switched = switchTo("main");
		assertThat(switched.queued).as("exact restore of main").isZero();
		assertSearchEqualsAFreshIndex("main");
		System.out.println("JdtIndexSwitchTest: index jobs queued after the nearest ancestor: " + switched.queued);
	}

	/**
	 * Branch gen = main + a second source folder on the classpath. Entering gen from feat restores the state of main
	 * (the nearest ancestor) whose classpath differs from the working tree's: its index is not restored (JDT indexes
	 * the change itself, and the restore does not count that as a failure, which would have JDT build in full); then exact restores between branches whose
	 * classpaths differ. Search answers equal a fresh index every time.
	 */
	@Test
	void aClasspathThatDiffersFromTheStateLeavesTheIndexToJdt() throws Exception {
		repo.git.checkout().setName("main").call();
		repo.branch("gen", Map.of("gen/g/G.java", "package g;\npublic class G {\n\tint g() { return new p.A1().one(); }\n}\n",
				".classpath", """
						<?xml version="1.0" encoding="UTF-8"?>
						<classpath>
							<classpathentry kind="src" path="src"/>
							<classpathentry kind="src" path="gen"/>
							<classpathentry kind="lib" path="%s"/>
							<classpathentry kind="output" path="bin"/>
						</classpath>
						""".formatted(Path.of(System.getProperty("java.home"), "lib", "jrt-fs.jar"))));
		repo.git.checkout().setName("main").call();
		importAndBuild();
		switchTo("feat"); // saves main
		assertSearchEqualsAFreshIndex("feat");
		Switched switched = switchTo("gen"); // saves feat, restores main as the nearest ancestor
		assertThat(switched.output).as("every part restored but the index, which is no failure").contains(
				"RESTORED Restored the state");
		assertThat(switched.queued).as("JDT indexes the change itself").isGreaterThanOrEqualTo(2);
		assertSearchEqualsAFreshIndex("gen");
		for (String branch : List.of("feat", "gen", "main", "gen")) {
			switched = switchTo(branch);
			assertThat(switched.output).contains("RESTORED");
			assertThat(switched.queued).as("exact restore of " + branch + ": " + switched.output).isZero();
			assertSearchEqualsAFreshIndex(branch);
		}
	}

	/**
	 * A save while JDT's indexer still has a job of the project queued (here: an edit it has not indexed yet) does
	 * not wait for it, since a job reads its file only when it runs, after a checkout possibly the next branch's: the
	 * state is saved without the index. Once the job has run, the index is saved.
	 */
	@Test
	void anIndexWithAJobQueuedIsNotSaved() throws Exception {
		importAndBuild();
		IndexManager indexes = JavaModelManager.getIndexManager();
		StateInfo saved;
		indexes.disable();
		try {
			project.getFile("src/p/A3.java").setContents(
					"package p;\npublic class A3 {\n\tint tres() { return 3; }\n}\n".getBytes(StandardCharsets.UTF_8),
					IResource.FORCE, null);
			SwitchHarness.awaitQuiet();
			assertThat(queuedFor(project)).isEqualTo(1);
			saved = harness.service.save(repo.gitDir(), null);
		} finally {
			indexes.enable();
		}
		assertThat(saved.contributors()).as("saved with a job queued").doesNotContainKey(INDEX)
				.containsKey("dev.branchstate.jdt.buildstate");
		Searched.of(project); // the job runs
		assertThat(harness.service.save(repo.gitDir(), null).contributors()).containsKey(INDEX);
	}

	/**
	 * A state of the commit that holds JDT's index is not replaced by a save that would lack it (JDT's indexer has a
	 * job of the project queued: here a source touched without a change, so the working tree is clean): the save is
	 * skipped and says why, and the stored state keeps its index.
	 */
	@Test
	void aCompleteStateIsNotReplacedByOneWithoutTheIndex() throws Exception {
		importAndBuild();
		StateInfo complete = harness.service.save(repo.gitDir(), null);
		assertThat(complete.contributors()).containsKey(INDEX);
		IndexManager indexes = JavaModelManager.getIndexManager();
		indexes.disable();
		try {
			project.getFile("src/p/A3.java").touch(null);
			SwitchHarness.awaitQuiet();
			assertThat(queuedFor(project)).isEqualTo(1);
			assertThatThrownBy(() -> harness.service.save(repo.gitDir(), null))
					.isInstanceOfSatisfying(CoreException.class, e -> assertThat(e.getStatus().getMessage())
							.contains("is kept as it is stored").contains(INDEX));
		} finally {
			indexes.enable();
		}
		assertThat(harness.service.states(repo.gitDir())).singleElement()
				.satisfies(s -> assertThat(s.archive()).isEqualTo(complete.archive()))
				.satisfies(s -> assertThat(s.contributors()).containsKey(INDEX));
	}

	/**
	 * At a larger scale: 300 classes, all changed between main and feat (as the 291 files of the
	 * benchmark). Counted and timed with JDT's indexer held during the switch, then released: the switch without a
	 * state of the branch entered (JDT indexes what the checkout changed) against exact restores.
	 */
	@Test
	void anExactRestoreQueuesNoIndexJobWhere300FilesChanged() throws Exception {
		repo.close();
		Map<String, String> main = new HashMap<>();
		Map<String, String> feat = new HashMap<>();
		for (int i = 0; i < 300; i++) {
			main.put("src/m/C" + i + ".java", generated(i, "a"));
			feat.put("src/m/C" + i + ".java", generated(i, "b"));
		}
		repo = JavaRepository.create(temp.resolve("repo-300"), main);
		repo.branch("feat", feat);
		repo.git.checkout().setName("main").call();
		importAndBuild();
		Switched first = switchTo("feat");
		assertSearchEqualsAFreshIndex("feat");
		Switched back = switchTo("main");
		Switched again = switchTo("feat");
		assertSearchEqualsAFreshIndex("feat");
		assertThat(first.queued).isGreaterThanOrEqualTo(300);
		assertThat(back.queued).isZero();
		assertThat(again.queued).isZero();
		System.out.println("JdtIndexSwitchTest: 300 files changed: no state: " + first.queued + " index jobs, ready in "
				+ first.readyMs + " ms; exact restores: " + back.queued + " / " + again.queued + " jobs, ready in "
				+ back.readyMs + " / " + again.readyMs + " ms");
	}

	/**
	 * JDT writes the indexes it changed only once its indexer has been idle for a second and is woken again: a session
	 * that ends sooner (a headless command, the IDE closed right after a switch) does not list them as saved, and the
	 * next session indexes the whole project again at its first use of the index, and the states it saves hold no
	 * index. The workspace's full save at a session's end has JDT write them (the project is not tracked here, so no
	 * save of a state writes the index meanwhile).
	 */
	@Test
	void theFullSaveAtASessionsEndWritesTheIndexesJdtChangedForTheNext() throws Exception {
		harness.autoBuild(true);
		((StateService) harness.service).contributors().find(INDEX)
				.orElseThrow().contributor().orElseThrow(); // as when Branchstate first uses JDT's index
		project = repo.importProject();
		SwitchHarness.awaitQuiet();
		Searched.of(project); // JDT has indexed the project
		IndexManager manager = JavaModelManager.getIndexManager();
		String indexFile = manager.computeIndexLocation(project.getFullPath()).fileName();

		project.getFile("src/p/Late.java").create(
				"package p;\npublic class Late {\n\tA1 a;\n}\n".getBytes(StandardCharsets.UTF_8), true, false, null);
		manager.waitForIndex(false, null); // JDT indexed the new file: its index changed, not yet written
		assertThat(savedIndexNames()).as("JDT's saved indexes before the session's end").doesNotContain(indexFile);

		ResourcesPlugin.getWorkspace().save(true, null);
		assertThat(savedIndexNames()).as("JDT's saved indexes after the full save").contains(indexFile);
	}

	/** @return the index files JDT lists as saved: those the next session loads instead of indexing again */
	private static List<String> savedIndexNames() throws Exception {
		Path file = JavaCore.getPlugin().getStateLocation().append("savedIndexNames.txt").toPath();
		return java.nio.file.Files.exists(file) ? java.nio.file.Files.readAllLines(file) : List.of();
	}

	/** @return {@link #savedIndexNames()} once JDT's job that writes them after each change of an index's state ran */
	private static List<String> savedIndexNamesWritten() throws Exception {
		for (Job job : Job.getJobManager().find(null)) {
			if (job.getName().equals("Updating index names")) {
				job.join();
			}
		}
		return savedIndexNames();
	}

	/** A class of some 60 lines that references its neighbours; {@code variant} changes every method's body. */
	private static String generated(int i, String variant) {
		StringBuilder b = new StringBuilder("package m;\n\nimport java.util.ArrayList;\nimport java.util.List;\n\n");
		b.append("public class C").append(i).append(" {\n\tprivate final List<String> names = new ArrayList<>();\n");
		for (int k = 0; k < 10; k++) {
			b.append("\tpublic int m").append(k).append("(C").append((i + 1) % 300).append(" next, int x) {\n");
			b.append("\t\tnames.add(\"").append(variant).append(k).append("\");\n");
			b.append("\t\tif (x > ").append(k).append(") {\n\t\t\treturn next.m").append(k).append("(null, x - 1) + ")
					.append(variant.equals("a") ? k : k + 1).append(";\n\t\t}\n");
			b.append("\t\treturn names.size();\n\t}\n");
		}
		return b.append("}\n").toString();
	}

	private void importAndBuild() throws Exception {
		harness.autoBuild(true);
		project = repo.importProject();
		harness.manager().track();
		SwitchHarness.awaitQuiet();
		Searched.of(project); // waits until JDT has indexed the project and the JDK
	}

	record Switched(String output, int queued, long readyMs) {
	}

	/**
	 * A checkout on the command line, handled by the switch manager as in the IDE (no workspace save afterwards,
	 * which would save the state and wait for the indexer), then a refresh of the project as EGit does, with JDT's
	 * indexer held: what it queued meanwhile is
	 * counted once the switch and the build are done, then it runs. @return the events, the index jobs queued, the
	 * time until JDT was ready to search
	 */
	private Switched switchTo(String branch) throws Exception {
		IndexManager indexes = JavaModelManager.getIndexManager();
		harness.takeEvents(repo.gitDir());
		int queued;
		indexes.disable();
		try {
			repo.cli("checkout", branch);
			harness.awaitEvent(repo.gitDir(), e -> e.kind() == StateEvent.Kind.RESTORED
					|| e.kind() == StateEvent.Kind.SKIPPED || e.kind() == StateEvent.Kind.FAILED);
			SwitchHarness.awaitQuiet();
			// as EGit or the workspace's auto-refresh does after a checkout (a switch that restores refreshed first)
			project.refreshLocal(IResource.DEPTH_INFINITE, null);
			SwitchHarness.awaitQuiet();
			queued = queuedFor(project);
		} finally {
			indexes.enable();
		}
		long start = System.nanoTime();
		Searched.of(project);
		long readyMs = (System.nanoTime() - start) / 1_000_000;
		String output = harness.takeEvents(repo.gitDir()).stream().map(e -> e.kind() + " " + e.message())
				.collect(Collectors.joining("\n"));
		System.out.println("JdtIndexSwitchTest: switch to " + branch + ": " + queued + " index jobs queued, ready in "
				+ readyMs + " ms; " + output);
		return new Switched(output, queued, readyMs);
	}

	/**
	 * @return the jobs of JDT's indexer queue that belong to the project (its index requests; not the meta-index
	 *         update, whose family is no project), read from the queue's private list
	 */
	private static int queuedFor(IProject project) throws ReflectiveOperationException {
		IndexManager indexes = JavaModelManager.getIndexManager();
		Field field = JobManager.class.getDeclaredField("awaitingJobs");
		field.setAccessible(true);
		synchronized (indexes) {
			List<?> jobs = (List<?>) field.get(indexes);
			List<String> mine = jobs.stream().map(IJob.class::cast).filter(j -> j.belongsTo(project.getName()))
					.map(String::valueOf).toList();
			System.out.println("JdtIndexSwitchTest: queued " + jobs.size() + ", of the project: " + mine);
			return mine.size();
		}
	}

	private void assertSearchEqualsAFreshIndex(String branch) throws Exception {
		assertThat(repo.git.getRepository().getBranch()).isEqualTo(branch);
		Searched actual = Searched.of(project);
		Searched fresh = freshlyIndexedCopy();
		assertThat(fresh.typeNames()).as("a fresh index of " + branch + " has types").isNotEmpty();
		assertThat(actual).as("JDT's search answers on " + branch + " against a fresh index").isEqualTo(fresh);
	}

	/**
	 * A copy of the working tree (without {@code .git} and {@code bin}) imported as a second project under another
	 * name, which JDT indexes from scratch. @return its search answers
	 */
	private Searched freshlyIndexedCopy() throws Exception {
		String name = repo.projectName + "-fresh" + NAMES.incrementAndGet();
		Path copy = repo.copyOfWorkTree(temp, name);
		IWorkspace workspace = ResourcesPlugin.getWorkspace();
		IProject fresh = workspace.getRoot().getProject(name);
		try {
			IProjectDescription description = workspace
					.loadProjectDescription(IPath.fromPath(copy.resolve(".project")));
			fresh.create(description, null);
			fresh.open(null);
			return Searched.of(fresh);
		} finally {
			SwitchHarness.awaitQuiet();
			fresh.delete(true, true, null);
		}
	}

	/**
	 * JDT's search answers about a project's sources, with project-relative paths: every type name in the index,
	 * references to A1.one(), to A1 and to A3, every method and type declaration, and the secondary types found.
	 */
	record Searched(TreeSet<String> typeNames, TreeSet<String> matches, TreeSet<String> secondaryTypes) {

		static Searched of(IProject project) throws CoreException {
			IJavaProject javaProject = JavaCore.create(project);
			IJavaSearchScope scope = SearchEngine.createJavaSearchScope(new IJavaElement[] { javaProject },
					IJavaSearchScope.SOURCES);
			TreeSet<String> typeNames = new TreeSet<>();
			new SearchEngine().searchAllTypeNames(null, SearchPattern.R_PATTERN_MATCH, "*".toCharArray(),
					SearchPattern.R_PATTERN_MATCH, IJavaSearchConstants.TYPE, scope, new TypeNameRequestor() {
						@Override
						public void acceptType(int modifiers, char[] packageName, char[] simpleTypeName,
								char[][] enclosingTypeNames, String path) {
							typeNames.add(new String(packageName) + "." + new String(simpleTypeName) + " in "
									+ IPath.fromPortableString(path).removeFirstSegments(1));
						}
					}, IJavaSearchConstants.WAIT_UNTIL_READY_TO_SEARCH, null);
			TreeSet<String> matches = new TreeSet<>();
			search(scope, matches, "refs p.A1.one()", SearchPattern.createPattern("p.A1.one()",
					IJavaSearchConstants.METHOD, IJavaSearchConstants.REFERENCES, SearchPattern.R_EXACT_MATCH));
			for (String type : List.of("p.A1", "p.A3")) {
				search(scope, matches, "refs " + type, SearchPattern.createPattern(type, IJavaSearchConstants.TYPE,
						IJavaSearchConstants.REFERENCES, SearchPattern.R_EXACT_MATCH));
			}
			search(scope, matches, "method decl", SearchPattern.createPattern("*", IJavaSearchConstants.METHOD,
					IJavaSearchConstants.DECLARATIONS, SearchPattern.R_PATTERN_MATCH));
			search(scope, matches, "type decl", SearchPattern.createPattern("*", IJavaSearchConstants.TYPE,
					IJavaSearchConstants.DECLARATIONS, SearchPattern.R_PATTERN_MATCH));
			TreeSet<String> secondaryTypes = new TreeSet<>();
			for (String type : List.of("p.XS", "p.XT", "g.G")) {
				if (javaProject.findType(type, new NullProgressMonitor()) != null) {
					secondaryTypes.add(type);
				}
			}
			return new Searched(typeNames, matches, secondaryTypes);
		}

		private static void search(IJavaSearchScope scope, TreeSet<String> matches, String what,
				SearchPattern pattern) throws CoreException {
			new SearchEngine().search(pattern,
					new SearchParticipant[] { SearchEngine.getDefaultSearchParticipant() }, scope,
					new SearchRequestor() {
						@Override
						public void acceptSearchMatch(SearchMatch match) {
							String element = match.getElement() instanceof IJavaElement e ? e.getElementName() : "?";
							matches.add(what + ": " + match.getResource().getProjectRelativePath() + "@"
									+ match.getOffset() + "+" + match.getLength() + " " + element + " accuracy="
									+ match.getAccuracy());
						}
					}, null);
		}
	}
}
