package dev.branchstate.javaindex.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IProjectDescription;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.core.runtime.preferences.IEclipsePreferences;
import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.util.tracker.ServiceTracker;

import dev.branchstate.archive.ArchiveEntry;
import dev.branchstate.archive.ArchiveReader;
import dev.branchstate.archive.ArchiveWriter;
import dev.branchstate.archive.Archives;
import dev.branchstate.archive.WriteOptions;
import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.core.IStateService;
import dev.branchstate.core.RestoreResult;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateInfo;
import dev.branchstate.javaindex.Declaration;
import dev.branchstate.javaindex.IJavaIndex;
import dev.branchstate.javaindex.IndexUpdate;
import dev.branchstate.javaindex.IndexUpdate.Cause;
import dev.branchstate.javaindex.internal.JavaIndexService;

/**
 * The Java index saved and restored by the real state service, in a real Git repository (made with JGit) of real
 * sources: a restored index answers exactly like one built from scratch, and the replay after a restore parses
 * exactly the files that differ from the state.
 */
class StateServiceRestoreTest {

	private static final IWorkspace WORKSPACE = ResourcesPlugin.getWorkspace();
	private IStateService states;
	private JavaIndexService index;
	private final List<ServiceTracker<?, ?>> trackers = new ArrayList<>();

	@BeforeEach
	void services() throws Exception {
		BundleContext context = FrameworkUtil.getBundle(getClass()).getBundleContext();
		states = service(context, IStateService.class);
		index = (JavaIndexService) service(context, IJavaIndex.class);
		// the switch protocol stays out: the test calls the service itself
		preference(BranchstatePreferences.AUTO_SWITCH, "false");
	}

	@AfterEach
	void close() throws Exception {
		IEclipsePreferences node = InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE);
		node.remove(BranchstatePreferences.AUTO_SWITCH);
		node.flush();
		trackers.forEach(ServiceTracker::close);
	}

	private <T> T service(BundleContext context, Class<T> type) throws InterruptedException {
		ServiceTracker<T, T> tracker = new ServiceTracker<>(context, type, null);
		tracker.open();
		trackers.add(tracker);
		T service = tracker.waitForService(20_000);
		assertThat(service).as(type.getName()).isNotNull();
		return service;
	}

	private static void preference(String key, String value) throws Exception {
		IEclipsePreferences node = InstanceScope.INSTANCE.getNode(BranchstatePreferences.NODE);
		node.put(key, value);
		node.flush();
	}

	@Test
	void restoredIndexAnswersLikeAFreshOneAndReplaysExactlyTheChangedFiles(@TempDir Path temp) throws Exception {
		Path work = temp.resolve("repo");
		Files.createDirectories(work);
		Git git = Git.init().setInitialBranch("A").setDirectory(work.toFile()).call();
		try (git) {
			IProjectDescription description = WORKSPACE.newProjectDescription("lang-git");
			description.setLocation(IPath.fromPath(work));
			IProject project = WORKSPACE.getRoot().getProject("lang-git");
			project.create(description, null);
			project.open(null);
			Path src = work.resolve("src");
			Sources.sync(src, Sources.jar("old"));
			RevCommit a = commit(git, project, "A");
			git.checkout().setCreateBranch(true).setName("B").call();
			Sources.sync(src, Sources.jar("new"));
			RevCommit b = commit(git, project, "B");
			File gitDir = git.getRepository().getDirectory();
			assertThat(states.repositoryOf(project)).isPresent();

			StateInfo stateB = states.save(gitDir, new NullProgressMonitor());
			assertThat(stateB.commitId()).isEqualTo(b.name());
			assertThat(stateB.contributors()).containsEntry("dev.branchstate.javaindex", 2);

			// to A: the index follows the checkout the slow way (the protocol is off)
			git.checkout().setName("A").call();
			settle(project);
			assertThat(index.declarations(project, "Strings")).isEmpty();

			// back to B by restoring its state before the workspace sees the checkout
			List<IndexUpdate> updates = new CopyOnWriteArrayList<>();
			Consumer recorder = new Consumer(updates);
			index.addListener(recorder);
			try {
				git.checkout().setName("B").call();
				RestoreResult restored = states.restore(gitDir, b.name(), new NullProgressMonitor());
				assertThat(restored.changedSources()).isZero();
				settle(project);
			} finally {
				index.removeListener(recorder);
			}
			assertThat(parsed(updates)).as("nothing parsed after an exact restore").isEmpty();
			assertThat(index.declarations(project, "Strings")).isNotEmpty();
			assertThat(index.dump(project)).isEqualTo(freshDump(project, temp.resolve("fresh-b")));

			// B2 = B + one commit that changes, adds and deletes a file: the state of B is restored, then exactly
			// the added and the changed file are parsed and the deleted one dropped
			git.checkout().setCreateBranch(true).setName("B2").call();
			String changed = "src/org/apache/commons/lang3/BooleanUtils.java";
			String added = "src/org/apache/commons/lang3/Brand.java";
			String deleted = "src/org/apache/commons/lang3/Range.java";
			Path file = work.resolve(changed);
			String text = Files.readString(file, StandardCharsets.UTF_8);
			Files.writeString(file, text.substring(0, text.lastIndexOf('}'))
					+ "    public static boolean branchstateProbe() { return true; }\n}\n", StandardCharsets.UTF_8);
			Files.writeString(work.resolve(added),
					"package org.apache.commons.lang3;\npublic class Brand extends Range<String> { }\n");
			Files.delete(work.resolve(deleted));
			git.add().addFilepattern(".").call();
			git.add().addFilepattern(".").setUpdate(true).call();
			git.commit().setMessage("B2").call();
			git.checkout().setName("A").call();
			settle(project);
			updates.clear();
			index.addListener(recorder);
			try {
				git.checkout().setName("B2").call();
				RestoreResult restored = states.restore(gitDir, b.name(), new NullProgressMonitor());
				assertThat(restored.changedSources()).as("changed and added sources touched (the deleted one is gone)")
						.isEqualTo(2);
				settle(project);
			} finally {
				index.removeListener(recorder);
			}
			IndexUpdate replay = updates.stream().filter(u -> u.cause() == Cause.RESTORE).findFirst().orElseThrow();
			assertThat(replay.parsed()).extracting(IPath::toString).containsExactly(changed, added);
			assertThat(replay.removed()).extracting(IPath::toString).containsExactly(deleted);
			assertThat(parsed(updates)).containsExactlyInAnyOrder(changed, added);
			assertThat(index.declarations(project, "branchstateProbe")).hasSize(1);
			assertThat(index.declarations(project, "Brand")).singleElement().extracting(Declaration::signature)
					.isEqualTo("Range<String>");
			assertThat(index.declarations(project, "Range")).isEmpty();
			assertThat(index.dump(project)).isEqualTo(freshDump(project, temp.resolve("fresh-b2")));
			project.delete(false, true, null);
		}
	}

	/**
	 * After an exact restore, the work the checkout's refresh queues reads only what changed since the restore
	 * compared the working tree: a file edited and one deleted after it, and a file Git ignores (never compared),
	 * edited before it. Every other queued file keeps its restored hash unread, and the index equals a fresh one.
	 */
	@Test
	void afterARestoreTheCheckoutsQueuedWorkReadsOnlyWhatTheRestoreDidNotCompare(@TempDir Path temp)
			throws Exception {
		Path work = temp.resolve("repo");
		Files.createDirectories(work);
		try (Git git = Git.init().setInitialBranch("A").setDirectory(work.toFile()).call()) {
			IProjectDescription description = WORKSPACE.newProjectDescription("lang-vouched");
			description.setLocation(IPath.fromPath(work));
			IProject project = WORKSPACE.getRoot().getProject("lang-vouched");
			project.create(description, null);
			project.open(null);
			Path src = work.resolve("src");
			String ignored = "src/org/apache/commons/lang3/GeneratedProbe.java";
			Files.writeString(work.resolve(".gitignore"), "GeneratedProbe.java\n");
			Sources.sync(src, Sources.jar("old"));
			commit(git, project, "A");
			git.checkout().setCreateBranch(true).setName("B").call();
			Sources.sync(src, Sources.jar("new"));
			Files.writeString(work.resolve(ignored),
					"package org.apache.commons.lang3;\npublic class GeneratedProbe { void before() { } }\n");
			RevCommit b = commit(git, project, "B");
			File gitDir = git.getRepository().getDirectory();
			states.save(gitDir, new NullProgressMonitor());
			git.checkout().setName("A").call();
			settle(project);

			List<IndexUpdate> updates = new CopyOnWriteArrayList<>();
			Consumer recorder = new Consumer(updates);
			String edited = "src/org/apache/commons/lang3/BooleanUtils.java";
			String deleted = "src/org/apache/commons/lang3/Range.java";
			index.addListener(recorder);
			try {
				git.checkout().setName("B").call();
				// the ignored file changes where the restore does not look
				Files.writeString(work.resolve(ignored),
						"package org.apache.commons.lang3;\npublic class GeneratedProbe { void edited() { } }\n");
				// orders the checkout's writes before the restore's comparison by more than the 50 ms the index allows
				// for the file system's coarse clock (an order, not a verdict on time)
				Thread.sleep(250);
				RestoreResult restored = states.restore(gitDir, b.name(), new NullProgressMonitor());
				assertThat(restored.changedSources()).isZero();
				Path file = work.resolve(edited);
				String text = Files.readString(file, StandardCharsets.UTF_8);
				Files.writeString(file, text.substring(0, text.lastIndexOf('}'))
						+ "    public static boolean vouchedProbe() { return true; }\n}\n", StandardCharsets.UTF_8);
				Files.delete(work.resolve(deleted));
				settle(project);
			} finally {
				index.removeListener(recorder);
			}
			List<IndexUpdate> queued = updates.stream().filter(u -> u.cause() == Cause.DELTA).toList();
			assertThat(queued.stream().flatMap(u -> u.parsed().stream()).map(IPath::toString))
					.containsExactlyInAnyOrder(edited, ignored);
			assertThat(queued.stream().flatMap(u -> u.removed().stream()).map(IPath::toString))
					.containsExactly(deleted);
			int vouched = queued.stream().mapToInt(IndexUpdate::vouched).sum();
			assertThat(vouched).as("files of the checkout left unread").isGreaterThan(10)
					.isEqualTo(queued.stream().mapToInt(IndexUpdate::unchanged).sum());
			assertThat(index.declarations(project, "vouchedProbe")).hasSize(1);
			assertThat(index.declarations(project, "edited")).hasSize(1);
			assertThat(index.declarations(project, "Range")).isEmpty();
			assertThat(index.dump(project)).isEqualTo(freshDump(project, temp.resolve("fresh")));
			project.delete(false, true, null);
		}
	}

	@Test
	void workTheIndexerHadNotDoneWhenTheStateWasSavedIsDoneAfterTheRestore(@TempDir Path temp) throws Exception {
		Path work = temp.resolve("repo");
		Files.createDirectories(work);
		try (Git git = Git.init().setInitialBranch("main").setDirectory(work.toFile()).call()) {
			IProjectDescription description = WORKSPACE.newProjectDescription("late-git");
			description.setLocation(IPath.fromPath(work));
			IProject project = WORKSPACE.getRoot().getProject("late-git");
			project.create(description, null);
			project.open(null);
			Files.createDirectories(work.resolve("src/q"));
			Files.writeString(work.resolve("src/q/Early.java"), "package q;\npublic class Early { }\n");
			commit(git, project, "early");
			File gitDir = git.getRepository().getDirectory();

			// the indexer sees Late.java appear, and is held while the state is saved, as by a switch or a save ahead
			// (they save holding the workspace's rule): the state's store does not have Late.java
			org.eclipse.core.runtime.jobs.ISchedulingRule workspaceRule = org.eclipse.core.runtime.jobs.MultiRule
					.combine(WORKSPACE.getRoot(), WORKSPACE.getRuleFactory().buildRule());
			StateInfo state;
			org.eclipse.core.runtime.jobs.Job.getJobManager().beginRule(workspaceRule, null);
			try {
				Files.writeString(work.resolve("src/q/Late.java"), "package q;\npublic class Late { }\n");
				project.refreshLocal(IResource.DEPTH_INFINITE, null);
				// (the refresh has told the indexer: the work is queued, or taken by the index job, which waits)
				state = states.save(gitDir, new NullProgressMonitor());
			} finally {
				org.eclipse.core.runtime.jobs.Job.getJobManager().endRule(workspaceRule);
			}
			settle(project);
			assertThat(index.declarations(project, "Late")).hasSize(1);

			// restoring that state drops Late from the store; the work recorded with it brings it back
			RestoreResult restored = states.restore(gitDir, state.commitId(), new NullProgressMonitor());
			assertThat(restored.changedSources()).as("the working tree is as when saved").isZero();
			settle(project);
			assertThat(index.declarations(project, "Late")).as("Late.java indexed after the restore").hasSize(1);
			assertThat(index.dump(project)).isEqualTo(freshDump(project, temp.resolve("fresh")));
			project.delete(false, true, null);
		}
	}

	@Test
	void aStoredIndexThatCannotBeLoadedIsDroppedAndRebuilt(@TempDir Path temp) throws Exception {
		Path work = temp.resolve("repo");
		Files.createDirectories(work.resolve("src/q"));
		try (Git git = Git.init().setInitialBranch("main").setDirectory(work.toFile()).call()) {
			IProjectDescription description = WORKSPACE.newProjectDescription("torn-git");
			description.setLocation(IPath.fromPath(work));
			IProject project = WORKSPACE.getRoot().getProject("torn-git");
			project.create(description, null);
			project.open(null);
			Files.writeString(work.resolve("src/q/Kept.java"), "package q;\npublic class Kept { void keep() { } }\n");
			commit(git, project, "kept");
			File gitDir = git.getRepository().getDirectory();
			StateInfo state = states.save(gitDir, new NullProgressMonitor());

			// the unit's store file in the archive replaced by bytes that are not an EMF resource (CRC and sizes
			// right: the archive passes verification, the contributor's load fails)
			String unit = "store/units/src/q/Kept.java.bin";
			Path damaged = temp.resolve("damaged.zip");
			int replaced = 0;
			try (ArchiveReader reader = Archives.open(state.archive());
					ArchiveWriter writer = Archives.newWriter(damaged, WriteOptions.defaults())) {
				for (ArchiveEntry e : reader.entries()) {
					if (e.isDirectory()) {
						writer.addDirectory(e.name(), e.mode(), e.lastModified());
					} else {
						byte[] content = reader.readAllBytes(e.name(), 64 << 20);
						if (e.name().endsWith('/' + unit)) {
							content = "not an EMF binary resource".getBytes(StandardCharsets.UTF_8);
							replaced++;
						}
						writer.addBytes(e.name(), content, e.mode(), e.lastModified());
					}
				}
				writer.commit();
			}
			assertThat(replaced).isOne();
			Files.move(damaged, state.archive(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
			// the store on disk differs from the state, so the restore rewrites (and then reads) that file
			Files.writeString(work.resolve("src/q/Kept.java"), "package q;\npublic class Kept { void gone() { } }\n");
			settle(project);
			Files.writeString(work.resolve("src/q/Kept.java"), "package q;\npublic class Kept { void keep() { } }\n");

			List<StateEvent> events = new CopyOnWriteArrayList<>();
			dev.branchstate.core.IStateListener listener = events::add;
			states.addStateListener(listener);
			try {
				states.restore(gitDir, state.commitId(), new NullProgressMonitor());
			} catch (org.eclipse.core.runtime.CoreException e) {
				// when no part of the state could be restored, the restore fails as a whole
			} finally {
				states.removeStateListener(listener);
			}
			// the restore (partly done, or failed) reports the index of the project as not restored
			assertThat(events).filteredOn(e -> !e.status().isOK()).singleElement()
					.satisfies(e -> assertThat(messages(e.status())).contains("torn-git"));
			settle(project);
			// as if never restored: the store was dropped and the index rebuilt from the sources
			assertThat(index.declarations(project, "keep")).singleElement().extracting(Declaration::container)
					.isEqualTo("q.Kept");
			assertThat(index.declarations(project, "gone")).isEmpty();
			assertThat(index.dump(project)).isEqualTo(freshDump(project, temp.resolve("fresh")));
			project.delete(false, true, null);
		}
	}

	/** @return the messages of a status and all its children */
	private static String messages(org.eclipse.core.runtime.IStatus status) {
		StringBuilder b = new StringBuilder(status.getMessage());
		for (org.eclipse.core.runtime.IStatus child : status.getChildren()) {
			b.append(" | ").append(messages(child));
		}
		if (status.getException() != null) {
			b.append(" | ").append(status.getException().getMessage());
		}
		return b.toString();
	}

	/** A listener that can be removed again (a method reference is a new object each time). */
	private record Consumer(List<IndexUpdate> into) implements java.util.function.Consumer<IndexUpdate> {
		@Override
		public void accept(IndexUpdate u) {
			into.add(u);
		}
	}

	private RevCommit commit(Git git, IProject project, String message) throws Exception {
		settle(project);
		git.add().addFilepattern(".").call();
		git.add().addFilepattern(".").setUpdate(true).call();
		return git.commit().setMessage(message).call();
	}

	private void settle(IProject project) throws Exception {
		project.refreshLocal(IResource.DEPTH_INFINITE, null);
		index.join(new NullProgressMonitor());
	}

	private static Set<String> parsed(List<IndexUpdate> updates) {
		Set<String> out = new TreeSet<>();
		updates.forEach(u -> u.parsed().forEach(p -> out.add(p.toString())));
		return out;
	}

	private static String freshDump(IProject project, Path root) throws Exception {
		JavaIndexService fresh = new JavaIndexService(WORKSPACE, root, 0);
		try {
			fresh.join(new NullProgressMonitor());
			return fresh.dump(project);
		} finally {
			fresh.close();
		}
	}
}
