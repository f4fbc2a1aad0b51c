package dev.branchstate.core.internal.service;

import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.MultiStatus;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.core.runtime.jobs.ISchedulingRule;
import org.eclipse.core.runtime.jobs.MultiRule;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.osgi.util.NLS;

import dev.branchstate.archive.ArchiveReader;
import dev.branchstate.archive.Archives;
import dev.branchstate.core.IStateContributor;
import dev.branchstate.core.RestoreResult;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.Laps;
import dev.branchstate.core.internal.Messages;
import dev.branchstate.core.internal.Trace;
import dev.branchstate.core.internal.contributors.ContributorRegistry;
import dev.branchstate.core.internal.contributors.ContributorRegistry.Descriptor;
import dev.branchstate.core.internal.contributors.ContributorRegistry.Outcome;
import dev.branchstate.core.internal.service.RestoreOperation.Selected;
import dev.branchstate.core.internal.store.StateStore;

/**
 * One restore of a repository's state from the request to its event, under the repository's lock: finds the
 * state, chooses its parts (the contributors that can read them, the projects still built against what they were
 * built against, the builders whose state can be handed over), maps the changes since the save to the projects,
 * runs the {@link RestoreOperation} under the projects' rule, and tells the listeners. One object per restore;
 * {@link StateService} runs it.
 */
final class RestoreRun {

	private final StateService service;
	private final IWorkspace workspace;
	private final ContributorRegistry contributors;
	private final StateEvents events;
	private final File dir;
	private final String commitId;
	/** The working tree's status read by the caller, {@code null}: read here. */
	private final CompletableFuture<WorkingTreeStatus> statusAhead;
	private String branch;
	private long start;

	/**
	 * @param statusAhead the working tree's status read by the caller after the checkout, or {@code null}: read here
	 */
	RestoreRun(StateService service, IWorkspace workspace, StateEvents events, File gitDir, String commitId,
			CompletableFuture<WorkingTreeStatus> statusAhead) {
		this.service = service;
		this.statusAhead = statusAhead;
		this.workspace = workspace;
		this.contributors = service.contributors();
		this.events = events;
		this.dir = StateStore.canonical(gitDir);
		this.commitId = commitId;
	}

	RestoreResult run(IProgressMonitor monitor) throws CoreException {
		SubMonitor sub = SubMonitor.convert(monitor,
				NLS.bind(Messages.Service_restoring, dir, GitFacts.shortId(commitId)), 100);
		start = System.nanoTime();
		Laps laps = Laps.start("restore " + GitFacts.shortId(commitId)); //$NON-NLS-1$
		ReentrantLock lock = service.lockOf(dir);
		lock.lock();
		try (Repository repository = GitFacts.open(dir)) {
			laps.lap("repository"); //$NON-NLS-1$
			branch = GitFacts.currentBranch(repository);
			StateStore store = service.store();
			Optional<StateInfo> found = store.find(dir, commitId);
			if (found.isEmpty()) {
				throw events.skipped(dir, commitId, branch,
						NLS.bind(Messages.Service_noState, dir, GitFacts.shortId(commitId)), start);
			}
			StateInfo state = found.get();
			ObjectId head = repository.resolve(Constants.HEAD);
			String current = head == null ? null : head.name();
			laps.lap("found"); //$NON-NLS-1$
			MultiStatus problems = new MultiStatus(StateService.class, 0,
					NLS.bind(Messages.Service_restoredPartly, dir, GitFacts.shortId(commitId)));
			try (ArchiveReader reader = Archives.open(state.archive());
					KnownFiles known = KnownFiles.lastUsed(store.states(dir), state, reader).orElse(null)) {
				laps.lap("archive opened"); //$NON-NLS-1$
				List<Selected> selected = select(reader, problems);
				// a project built against other libraries, JDK or target platform than it is now is left to its
				// builders (and what reads it, by the hand-off's rule)
				Map<IProject, String> builtOther = BuiltAgainst.changedSince(reader.entry(BuiltAgainst.ENTRY).isPresent()
						? reader.readAllBytes(BuiltAgainst.ENTRY, 16 << 20)
						: null, selected);
				if (!builtOther.isEmpty()) {
					builtOther.values().forEach(reason -> problems.add(Status.info(reason)));
					selected = selected.stream().filter(s -> !builtOther.containsKey(s.project())).toList();
					if (selected.isEmpty()) {
						throw events.skipped(dir, commitId, branch, NLS.bind(Messages.Service_notRestoredBuiltAgainst,
								new Object[] { dir, GitFacts.shortId(commitId), String.join("; ", builtOther.values()) }), //$NON-NLS-1$
								start);
					}
				}
				laps.lap("selected"); //$NON-NLS-1$
				sub.worked(2);
				long files = selected.stream().map(s -> s.part().prefix()).distinct().mapToLong(reader::fileCount)
						.sum();
				Map<String, String> dirtyAtSave = reader.entry(StateLayout.DIRTY).isPresent()
						? ChangedPaths.decode(reader.readAllBytes(StateLayout.DIRTY, 256 << 20))
						: ChangedPaths.unknownContent(state.dirtyPaths());
				laps.lap("dirty at save"); //$NON-NLS-1$
				List<IProject> projects = selected.stream().map(Selected::project).distinct().toList();
				// found while the restore plans and checks (Git may still be reading the working tree's status)
				StateChanges changes = new StateChanges(() -> changedPaths(repository, state, dirtyAtSave, projects));
				RestoreOperation operation = new RestoreOperation(workspace, contributors, service.restoreJournal(),
						reader, state, current, changes, problems, sub::isCanceled, known, laps);
				final List<Selected> all = selected;
				ISchedulingRule rule = MultiRule.combine(projects.toArray(ISchedulingRule[]::new));
				try {
					// (the plan and the check of what will be read run under the rule too: nothing may write the
					// planned folders before the restore does)
					workspace.run(m -> operation.run(all, changed -> partsToWrite(all, changed, laps),
							SubMonitor.convert(m)), rule, IWorkspace.AVOID_UPDATE, sub.split(93));
				} catch (OperationCanceledException e) {
					operation.afterCancel();
					throw e;
				}
				if (!operation.parts().isEmpty() && operation.succeeded == 0) {
					throw new CoreException(problems);
				}
				laps.lap("operation ended"); //$NON-NLS-1$
				store.touch(state, Instant.now());
				laps.lap("catalog"); //$NON-NLS-1$
				sub.worked(5);
				long written = operation.contexts().stream().mapToLong(c -> c.written.get()).sum();
				long deleted = operation.contexts().stream().mapToLong(c -> c.deleted.get()).sum();
				long touched = operation.touched;
				Duration duration = StateEvents.elapsed(start);
				String restored = NLS.bind(Messages.Service_restored, new Object[] { dir, GitFacts.shortId(commitId),
						Long.valueOf(written), Long.valueOf(touched) });
				// what was left to the builders (INFO) is said after the figures; a failure (WARNING) says itself
				String message = problems.isOK() ? restored
						: problems.getSeverity() == IStatus.INFO ? restored + "; " + String.join("; ", //$NON-NLS-1$ //$NON-NLS-2$
								Arrays.stream(problems.getChildren()).map(IStatus::getMessage).toList())
								: problems.getMessage();
				events.fire(new StateEvent(StateEvent.Kind.RESTORED, dir, commitId, branch, message,
						problems.isOK() ? Status.OK_STATUS : problems, files, state.uncompressedSize(), touched,
						duration));
				laps.lap("told"); //$NON-NLS-1$
				return new RestoreResult(state, files, written, deleted, touched, duration);
			}
		} catch (OperationCanceledException e) {
			throw events.canceled(Messages.Service_restoreCanceled, dir, commitId, branch, e, start);
		} catch (CoreException e) {
			if (e.getStatus().getSeverity() == IStatus.INFO) {
				throw e;
			}
			if (e.getStatus().getSeverity() == IStatus.CANCEL) {
				throw events.canceled(Messages.Service_restoreCanceled, dir, commitId, branch,
						new OperationCanceledException(), start);
			}
			throw failed(e.getStatus().getMessage(), e);
		} catch (IOException | RuntimeException e) {
			throw failed(String.valueOf(e.getMessage()), e);
		} finally {
			lock.unlock();
			laps.end();
		}
	}

	private List<Selected> select(ArchiveReader reader, MultiStatus problems) throws IOException {
		List<StateLayout.Part> parts = StateLayout.decode(reader.readAllBytes(StateLayout.PARTS, 16 << 20));
		List<IProject> projects = service.projectsOf(dir);
		List<Selected> result = new ArrayList<>();
		for (Descriptor d : contributors.descriptors()) { // priority order
			for (StateLayout.Part part : parts) {
				if (!part.contributorId().equals(d.id())) {
					continue;
				}
				IProject project = projects.stream().filter(p -> p.getName().equals(part.project())).findFirst()
						.orElse(null);
				if (project == null) {
					continue; // no longer in the workspace
				}
				Optional<IStateContributor> c = d.contributor();
				if (c.isEmpty()) {
					continue;
				}
				Outcome<Boolean> readable = ContributorRegistry
						.safely(() -> Boolean.valueOf(c.get().canRead(part.version())));
				Outcome<Set<String>> builders = ContributorRegistry.safely(() -> Set.copyOf(c.get().builderStates()));
				if (readable.ok() && Boolean.TRUE.equals(readable.value()) && builders.ok()) {
					result.add(new Selected(part, c.get(), project, builders.value()));
				} else {
					problems.add(Status.info(NLS.bind(Messages.Service_contributorVersion, d.id(),
							Integer.valueOf(part.version()))));
				}
			}
		}
		for (StateLayout.Part part : parts) {
			if (contributors.find(part.contributorId()).isEmpty()) {
				problems.add(Status.info(NLS.bind(Messages.Service_contributorMissing, part.contributorId())));
			}
		}
		return result;
	}

	/**
	 * The parts of those planned that the restore writes, now that the changes since the state are known: none when
	 * a file of the state is gone that a builder would not hear of (the restore is refused), else every part but the
	 * builder states that cannot be handed to their builders with their output.
	 *
	 * @throws CoreException the restore's SKIPPED event, when it is refused
	 */
	private List<Selected> partsToWrite(List<Selected> selected, Map<IProject, Set<IPath>> changed, Laps laps)
			throws CoreException {
		if (Trace.on(Trace.RESTORE)) {
			changed.forEach((project, paths) -> Trace.trace(Trace.RESTORE, "restore of " //$NON-NLS-1$
					+ GitFacts.shortId(commitId) + ": " + project.getName() + " differs from the state in " //$NON-NLS-1$ //$NON-NLS-2$
					+ paths.stream().map(IPath::toPortableString).sorted().toList()));
		}
		Optional<String> unfollowable = RestoreOperation.unfollowable(changed);
		if (unfollowable.isPresent()) {
			throw events.skipped(dir, commitId, branch, NLS.bind(Messages.Service_notRestoredGone,
					new Object[] { dir, GitFacts.shortId(commitId), unfollowable.get() }), start);
		}
		// a builder's own state is restored only where it can be handed to the builder with its output
		Set<IProject> handOff = RestoreOperation.handOffCandidates(selected, changed);
		List<Selected> parts = selected.stream().filter(s -> s.builders().isEmpty() || handOff.contains(s.project()))
				.toList();
		laps.lap("unfollowable, hand-off"); //$NON-NLS-1$
		return parts;
	}

	/** Finds what differs between the state and the working tree (waits for Git's status when it is read ahead). */
	private StateChanges.Found changedPaths(Repository repository, StateInfo state, Map<String, String> dirtyAtSave,
			List<IProject> projects) throws CoreException {
		try {
			WorkingTreeStatus status = statusAhead != null ? statusAhead.join() : WorkingTreeStatus.read(repository);
			Set<String> changed = ChangedPaths.compute(repository, state.commitId(), dirtyAtSave, status.dirty());
			WorkingTreeComparison comparison = new WorkingTreeComparison(status.at(), status.dirty(), repository,
					projects);
			return new StateChanges.Found(ProjectPaths.byProject(changed, repository, projects, contributors),
					comparison);
		} catch (IOException | RuntimeException e) {
			throw new CoreException(Status.error(NLS.bind(Messages.Service_changedPathsFailed, state.commitId()), e));
		}
	}

	private CoreException failed(String reason, Throwable e) {
		return events.failed(Messages.Service_restoreFailed, dir, commitId, branch, reason, e, start);
	}
}
