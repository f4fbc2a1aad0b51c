package dev.branchstate.javaindex.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.core.runtime.preferences.IEclipsePreferences;
import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.jgit.api.Git;
import org.junit.jupiter.api.Test;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.util.tracker.ServiceTracker;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.core.IStateListener;
import dev.branchstate.core.IStateService;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.switching.SwitchManager;
import dev.branchstate.javaindex.IJavaIndex;
import dev.branchstate.javaindex.IndexUpdate;
import dev.branchstate.javaindex.internal.JavaIndexService;

/**
 * The Java index branch-switch benchmark (issue 6), driven by {@code releng/bench/e2e/java-index.sh}: not a test of the
 * normal build (its name matches no surefire include, and it needs {@code -Dbench.repo}). On a Git repository of
 * real sources with branches {@code A}, {@code B} and {@code B2} (B plus one commit), whose projects keep their
 * class files in a git-ignored {@code bin/} folder, it measures four switches in one run:
 * <ol type="a">
 * <li>A→B with Branchstate off: the Java index re-indexes what changed;</li>
 * <li>A→B with Branchstate and an exact state of B;</li>
 * <li>A→B2: the nearest stored ancestor (B) is restored, then the changed files are replayed;</li>
 * <li>A→B with Branchstate and no state of A or B: A is saved on the way, nothing restored.</li>
 * </ol>
 * Each case starts from A with the index and {@code bin/} of A. Wall time runs from the checkout to the moment the
 * switch is handled, the projects refreshed and the index idle.
 * <p>
 * In these four cases the states hold the Java index (and the problem markers), not the class folders: no builder
 * regenerates {@code bin/} here, so case a leaves it alone, and b–d do too. The cost of keeping the class folders
 * as well is measured afterwards on its own: b and d again with {@code derivedFolders=bin}.
 */
class SwitchBenchmark {

	private static final IWorkspace WORKSPACE = ResourcesPlugin.getWorkspace();
	private final PrintStream out = System.out;
	private IStateService states;
	private SwitchManager manager;
	private JavaIndexService index;
	private File gitDir;
	private Path repo;
	private Path classes;
	private final List<IProject> projects = new ArrayList<>();
	private final List<StateEvent> events = new CopyOnWriteArrayList<>();
	private final List<IndexUpdate> updates = new CopyOnWriteArrayList<>();

	/** One measured switch. */
	record Result(String name, long checkoutMs, long totalMs, long parsed, long hashed, long restoredFiles,
			long restoredBytes, long derivedWritten, long derivedBytesWritten, long indexWritten, long savedFiles,
			long savedBytes, long indexMs, long savedMs, long restoreMs) {
	}

	@Test
	void run() throws Exception {
		String repoProperty = System.getProperty("bench.repo", "");
		assumeTrue(!repoProperty.isBlank(), "bench.repo not set: the benchmark runs only from releng/bench/e2e/java-index.sh");
		repo = Path.of(repoProperty);
		classes = Path.of(System.getProperty("bench.classes"));
		Path resultFile = Path.of(System.getProperty("bench.out"));
		BundleContext context = FrameworkUtil.getBundle(SwitchBenchmark.class).getBundleContext();
		states = service(context, IStateService.class);
		manager = service(context, SwitchManager.class);
		index = (JavaIndexService) service(context, IJavaIndex.class);
		gitDir = repo.resolve(".git").toFile();
		states.addStateListener((IStateListener) events::add);
		index.addListener(updates::add);
		preference(BranchstatePreferences.DERIVED_FOLDERS, "");
		preference(BranchstatePreferences.AUTO_SWITCH, "true");

		// setup: import, "build" A (classes into bin/, index), save A; same for B; back to A
		long t = System.nanoTime();
		importProjects();
		manager.track();
		assertThat(manager.repository(gitDir)).isPresent();
		build("A");
		long fullIndexMs = ms(t);
		long indexedFiles = projects.stream().mapToLong(p -> index.files(p).size()).sum();
		out.printf("setup: %d projects, %d compilation units indexed in %d ms%n", projects.size(), indexedFiles,
				fullIndexMs);
		StateInfo stateA = states.save(gitDir, new NullProgressMonitor());
		checkout("B");
		build("B");
		StateInfo stateB = states.save(gitDir, new NullProgressMonitor());
		out.printf("setup: state A %d bytes, state B %d bytes (archive)%n", stateA.size(), stateB.size());
		backToA();

		int rounds = Integer.getInteger("bench.rounds", 3).intValue();
		List<List<Result>> runs = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
		boolean identical = true;
		for (int round = 1; round <= rounds; round++) {
			out.println("round " + round + " of " + rounds);
			preference(BranchstatePreferences.AUTO_SWITCH, "false");
			runs.get(0).add(measure("a) A→B, Branchstate off", "B"));
			preference(BranchstatePreferences.AUTO_SWITCH, "true");
			backToA();
			runs.get(1).add(measure("b) A→B, exact state of B", "B"));
			backToA();
			runs.get(2).add(measure("c) A→B' (B + 1 commit), state of B + replay", "B2"));
			if (round == 1) {
				identical = dumps().equals(freshDumps());
			}
			backToA();
		}
		for (int round = 1; round <= rounds; round++) {
			for (StateInfo s : states.states(gitDir)) {
				states.delete(s);
			}
			runs.get(3).add(measure("d) A→B, no state of A or B (A saved on the way)", "B"));
			backToA();
		}
		// the class folders too: states of A and B with bin/, then b and d again
		preference(BranchstatePreferences.DERIVED_FOLDERS, "bin");
		for (StateInfo s : states.states(gitDir)) {
			states.delete(s);
		}
		build("A");
		states.save(gitDir, new NullProgressMonitor());
		checkout("B");
		build("B");
		states.save(gitDir, new NullProgressMonitor());
		backToA();
		List<List<Result>> withClasses = List.of(new ArrayList<>(), new ArrayList<>());
		for (int round = 1; round <= rounds; round++) {
			out.println("class folders, round " + round + " of " + rounds);
			withClasses.get(0).add(measure("b+) A→B, exact state of B with bin/", "B"));
			backToA();
		}
		for (int round = 1; round <= rounds; round++) {
			for (StateInfo s : states.states(gitDir)) {
				states.delete(s);
			}
			withClasses.get(1).add(measure("d+) A→B, no state, A saved with bin/", "B"));
			backToA();
		}
		List<Result> results = new ArrayList<>(runs.stream().map(SwitchBenchmark::median).toList());
		withClasses.stream().map(SwitchBenchmark::median).forEach(results::add);

		String table = table(results, identical, indexedFiles, fullIndexMs, rounds);
		out.println(table);
		Files.createDirectories(resultFile.toAbsolutePath().getParent());
		Files.writeString(resultFile, table, StandardCharsets.UTF_8);
		assertThat(identical).as("the index after restore + replay answers like a fresh one").isTrue();
	}

	/** @return the run with the median wall time */
	private static Result median(List<Result> runs) {
		List<Result> sorted = runs.stream().sorted(java.util.Comparator.comparingLong(Result::totalMs)).toList();
		return sorted.get(sorted.size() / 2);
	}

	private static <T> T service(BundleContext context, Class<T> type) throws InterruptedException {
		ServiceTracker<T, T> tracker = new ServiceTracker<>(context, type, null);
		tracker.open();
		T service = tracker.waitForService(60_000);
		assertThat(service).as(type.getName()).isNotNull();
		return service;
	}

	private static void preference(String key, String value) throws Exception {
		IEclipsePreferences node = InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE);
		node.put(key, value);
		node.flush();
	}

	private void importProjects() throws Exception {
		try (Stream<Path> dirs = Files.list(repo)) {
			for (Path dir : dirs.filter(d -> Files.exists(d.resolve(".project"))).sorted().toList()) {
				IProjectDescription description = WORKSPACE
						.loadProjectDescription(IPath.fromPath(dir.resolve(".project")));
				IProject project = WORKSPACE.getRoot().getProject(description.getName());
				if (!project.exists()) {
					project.create(description, null);
				}
				project.open(null);
				projects.add(project);
			}
		}
	}

	/** What a build would do here: the class files of the branch's release into bin/, the index brought up to date. */
	private void build(String branch) throws Exception {
		for (IProject project : projects) {
			Path bin = project.getLocation().toPath().resolve("bin");
			mirror(classes.resolve(branch).resolve(project.getName()), bin);
		}
		settle();
	}

	private void checkout(String branch) throws Exception {
		try (Git git = Git.open(repo.toFile())) {
			git.checkout().setName(branch).call();
		}
		manager.requestCheck(gitDir);
	}

	/** Back to A with its state (restored by the switch), everything settled. */
	private void backToA() throws Exception {
		checkout("A");
		settle();
		String wrong = "";
		for (IProject project : projects) {
			Path bin = project.getLocation().toPath().resolve("bin");
			if (!sameTree(classes.resolve("A").resolve(project.getName()), bin)) {
				wrong += " " + project.getName();
			}
		}
		if (!wrong.isEmpty()) {
			// the state of A was not restored (e.g. case a left Branchstate out): rebuild A the slow way
			build("A");
		}
	}

	private void settle() throws Exception {
		for (Job job : Job.getJobManager().find(SwitchManager.FAMILY)) {
			job.join();
		}
		for (IProject project : projects) {
			project.refreshLocal(IResource.DEPTH_INFINITE, null);
		}
		for (Job job : Job.getJobManager().find(SwitchManager.FAMILY)) {
			job.join();
		}
		index.join(new NullProgressMonitor());
	}

	private Result measure(String name, String branch) throws Exception {
		Map<Path, Long> before = snapshot();
		events.clear();
		updates.clear();
		System.gc();
		long t0 = System.nanoTime();
		try (Git git = Git.open(repo.toFile())) {
			git.checkout().setName(branch).call();
		}
		long checkoutMs = ms(t0);
		manager.requestCheck(gitDir);
		settle();
		long totalMs = ms(t0);
		Map<Path, Long> after = snapshot();
		long derivedWritten = 0;
		long derivedBytes = 0;
		long indexWritten = 0;
		for (Map.Entry<Path, Long> e : after.entrySet()) {
			Long old = before.get(e.getKey());
			if (old == null || !old.equals(e.getValue())) {
				if (e.getKey().toString().contains("/bin/")) {
					derivedWritten++;
					derivedBytes += Files.size(e.getKey());
				} else {
					indexWritten++;
				}
			}
		}
		long parsed = updates.stream().mapToLong(u -> u.parsed().size()).sum();
		long hashed = updates.stream().mapToLong(u -> u.parsed().size() + u.unchanged()).sum();
		long restoredFiles = 0;
		long restoredBytes = 0;
		long savedFiles = 0;
		long savedBytes = 0;
		long savedMs = 0;
		long restoreMs = 0;
		for (StateEvent e : events) {
			out.println("  event " + e.kind() + " " + e.branch() + " files=" + e.files() + " bytes=" + e.bytes()
					+ " " + (e.duration() == null ? "" : e.duration().toMillis() + " ms") + ": " + e.message());
			if (e.kind() == StateEvent.Kind.RESTORED) {
				restoredFiles += e.files();
				restoredBytes += e.bytes();
				restoreMs += e.duration().toMillis();
			} else if (e.kind() == StateEvent.Kind.SAVED) {
				savedFiles += e.files();
				savedBytes += e.bytes();
				savedMs += e.duration().toMillis();
			}
		}
		long indexMs = 0;
		for (IProject project : projects) {
			if (restoreMs > 0 && index.lastRestore(project) != null) {
				indexMs += index.lastRestore(project).duration().toMillis();
			}
		}
		Result r = new Result(name, checkoutMs, totalMs, parsed, hashed, restoredFiles, restoredBytes,
				derivedWritten, derivedBytes, indexWritten, savedFiles, savedBytes, indexMs, savedMs, restoreMs);
		out.println(r);
		return r;
	}

	/** @return last-modified time and size of every file under the projects' bin/ and the index store */
	private Map<Path, Long> snapshot() throws IOException {
		Map<Path, Long> files = new HashMap<>();
		for (IProject project : projects) {
			for (Path root : List.of(project.getLocation().toPath().resolve("bin"), index.storeOf(project))) {
				if (!Files.isDirectory(root)) {
					continue;
				}
				Files.walkFileTree(root, new java.nio.file.SimpleFileVisitor<>() {
					@Override
					public java.nio.file.FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
						files.put(file, attrs.lastModifiedTime().toMillis() * 31 + attrs.size()
								+ (attrs.fileKey() == null ? 0 : attrs.fileKey().hashCode()));
						return java.nio.file.FileVisitResult.CONTINUE;
					}
				});
			}
		}
		return files;
	}

	private String dumps() {
		StringBuilder all = new StringBuilder();
		for (IProject project : projects) {
			all.append(index.dump(project));
		}
		return all.toString();
	}

	private String freshDumps() throws Exception {
		Path root = Files.createTempDirectory("fresh-index");
		JavaIndexService fresh = new JavaIndexService(WORKSPACE, root, 0);
		try {
			fresh.join(new NullProgressMonitor());
			StringBuilder all = new StringBuilder();
			for (IProject project : projects) {
				all.append(fresh.dump(project));
			}
			return all.toString();
		} finally {
			fresh.close();
		}
	}

	private static void mirror(Path from, Path to) throws IOException {
		if (Files.isDirectory(to)) {
			try (Stream<Path> files = Files.walk(to)) {
				for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
					if (!Files.exists(from.resolve(to.relativize(p).toString()))) {
						Files.delete(p);
					}
				}
			}
		}
		try (Stream<Path> files = Files.walk(from)) {
			for (Path p : files.toList()) {
				Path target = to.resolve(from.relativize(p).toString());
				if (Files.isDirectory(p)) {
					Files.createDirectories(target);
				} else if (!Files.exists(target) || Files.mismatch(p, target) != -1) {
					Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
				}
			}
		}
	}

	private static boolean sameTree(Path a, Path b) throws IOException {
		if (!Files.isDirectory(b)) {
			return false;
		}
		List<Path> left;
		List<Path> right;
		try (Stream<Path> l = Files.walk(a); Stream<Path> r = Files.walk(b)) {
			left = l.filter(Files::isRegularFile).map(a::relativize).sorted().toList();
			right = r.filter(Files::isRegularFile).map(b::relativize).sorted().toList();
		}
		if (!left.equals(right)) {
			return false;
		}
		for (Path p : left) {
			if (Files.mismatch(a.resolve(p), b.resolve(p)) != -1) {
				return false;
			}
		}
		return true;
	}

	private static long ms(long since) {
		return (System.nanoTime() - since) / 1_000_000;
	}

	private static String table(List<Result> results, boolean identical, long units, long fullIndexMs, int rounds) {
		StringBuilder t = new StringBuilder();
		t.append("Median of ").append(rounds).append(" runs per case (the row is the median run).\n\n");
		t.append("| case | wall time (ms) | of which checkout (ms) | after checkout (ms) | units parsed | units hashed |"
				+ " files restored (state) | MB restored (state) | bin/ files rewritten | index files rewritten |"
				+ " files saved | MB saved |\n");
		t.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		for (Result r : results) {
			t.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %d | %d | %.1f | %d | %d | %d | %.1f |%n",
					r.name(), r.totalMs(), r.checkoutMs(), r.totalMs() - r.checkoutMs(), r.parsed(), r.hashed(),
					r.restoredFiles(), r.restoredBytes() / 1e6, r.derivedWritten(), r.indexWritten(), r.savedFiles(),
					r.savedBytes() / 1e6));
		}
		Result a = results.get(0);
		Result b = results.get(1);
		Result c = results.get(2);
		// rows b+ and d+ (class folders) are in the table; the ratios are those of a–d
		Result d = results.get(3);
		Result bPlus = results.get(4);
		Result dPlus = results.get(5);
		t.append('\n');
		t.append(String.format(Locale.ROOT,
				"Ratios on wall time: a/b = %.2f, a/c = %.2f, d/a = %.2f%n", ratio(a.totalMs(), b.totalMs()),
				ratio(a.totalMs(), c.totalMs()), ratio(d.totalMs(), a.totalMs())));
		t.append(String.format(Locale.ROOT,
				"Ratios after checkout (the checkout is the same in every case): a/b = %.2f, a/c = %.2f, d/a = %.2f%n",
				ratio(a.totalMs() - a.checkoutMs(), b.totalMs() - b.checkoutMs()),
				ratio(a.totalMs() - a.checkoutMs(), c.totalMs() - c.checkoutMs()),
				ratio(d.totalMs() - d.checkoutMs(), a.totalMs() - a.checkoutMs())));
		t.append(String.format(Locale.ROOT,
				"Restore in b: %d ms in the state service (the Java index's part %d ms). Save in d: %d ms.%n",
				b.restoreMs(), b.indexMs(), d.savedMs()));
		t.append(String.format(Locale.ROOT,
				"Class folders (bin/; no builder regenerates them here, so they are not in a–d): keeping them in the"
						+ " states too costs %+d ms on b (b+: restore %d ms, %d class files, %.1f MB rewritten) and"
						+ " %+d ms on d (d+: save %d ms, %d files, %.1f MB).%n",
				bPlus.totalMs() - b.totalMs(), bPlus.restoreMs(), bPlus.derivedWritten(),
				bPlus.derivedBytesWritten() / 1e6, dPlus.totalMs() - d.totalMs(), dPlus.savedMs(), dPlus.savedFiles(),
				dPlus.savedBytes() / 1e6));
		t.append(String.format(Locale.ROOT, "Initial full index: %d compilation units in %d ms.%n", units, fullIndexMs));
		t.append("Restored index (state of B + replay of B') answers like a freshly built one: "
				+ (identical ? "yes (identical dumps)" : "NO") + '\n');
		return t.toString();
	}

	private static double ratio(long x, long y) {
		return y == 0 ? Double.NaN : (double) x / y;
	}

}
