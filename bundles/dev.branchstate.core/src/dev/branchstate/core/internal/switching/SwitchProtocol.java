package dev.branchstate.core.internal.switching;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.ProjectScope;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.Platform;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.core.runtime.preferences.IPreferencesService;
import org.eclipse.core.runtime.preferences.IScopeContext;
import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ReflogEntry;
import org.eclipse.jgit.lib.ReflogReader;

import dev.branchstate.core.BranchstatePreferences;
import dev.branchstate.core.IStateService;
import dev.branchstate.core.RestoreResult;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateEvent.Kind;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.Laps;
import dev.branchstate.core.internal.Messages;
import dev.branchstate.core.internal.Log;
import dev.branchstate.core.internal.remote.RemoteConfiguration;
import dev.branchstate.core.internal.service.RemoteService;
import dev.branchstate.core.internal.service.RemovedProjects;
import dev.branchstate.core.internal.service.StateService;
import dev.branchstate.core.internal.service.WorkingTreeStatus;

/**
 * The switch protocol's work for one repository whose HEAD moved (see the bundle's README): save the state being
 * left, pick the state for the commit entered, restore it, and fail safe. Runs in the calling thread, under the
 * repository's lock, either in its {@link SwitchJob} or in the PRE_BUILD listener.
 */
public final class SwitchProtocol {

	/** System property: commits visited at most when looking for the nearest stored ancestor. */
	static final String MAX_WALK = "dev.branchstate.switch.maxWalk"; //$NON-NLS-1$
	/** System property: files that may differ at most between a stored ancestor and the commit entered. */
	static final String MAX_CHANGED_FILES = "dev.branchstate.switch.maxChangedFiles"; //$NON-NLS-1$

	private final IStateService states;
	private final StatePicker picker = new StatePicker(Integer.getInteger(MAX_WALK, 1000).intValue(),
			Integer.getInteger(MAX_CHANGED_FILES, 5000).intValue());

	/** The service when it is Branchstate's own; {@code null} otherwise. */
	private final StateService own;
	/** Remote states, when the service is Branchstate's own; {@code null} otherwise. */
	private final RemoteService remote;

	SwitchProtocol(IStateService states) {
		this.states = states;
		this.own = states instanceof StateService service ? service : null;
		this.remote = own != null ? own.remote() : null;
	}

	/**
	 * Handles the move of HEAD from the HEAD handled last to {@code target}, telling the repository's
	 * {@link DiskState} what happened to the derived data; the caller records {@code target} as handled.
	 */
	void handle(TrackedRepository repository, Head target, Laps laps, IProgressMonitor monitor) {
		long start = System.nanoTime();
		DiskState disk = repository.disk;
		Head before = disk.handled();
		String name = repository.displayName();
		boolean withinBranch = !before.detached() && Objects.equals(before.branch(), target.branch());
		String withinBranchMessage = Messages.bind(Messages.Switch_withinBranch,
				new Object[] { name, target.branch(), before.shortId(), target.shortId() });
		// (with automatic switching off too: what it protects is the work tree, not the derived data)
		removeProjectsGone(repository, before, target, monitor);
		List<IProject> projects = repository.projectsOnDisk();
		boolean byCommit = withinBranch && madeByCommit(repository);
		if (withinBranch && (byCommit || !autoSwitch(projects))) {
			// A commit leaves the working tree as it was: derived data that followed it (the builders ran on it)
			// now belongs to the new commit. Otherwise, until the next build, what the derived data reflects is
			// unknown, and it is not saved.
			disk.movedWithinBranch(target, byCommit);
			skipped(repository, target, start, withinBranchMessage);
			return;
		}
		if (!autoSwitch(projects)) {
			// the refresh hands the checkout to every builder and model (an index follows it at once, class files
			// at the next build): until a build has run, what the derived data reflects is unknown, never saved
			disk.unknown();
			skipped(repository, target, start, Messages.bind(Messages.Switch_autoSwitchOff,
					new Object[] { name, before.describe(), target.describe() }));
			return;
		}
		SubMonitor progress = SubMonitor.convert(monitor,
				Messages.bind(Messages.Switch_jobName, name, target.describe()), 100);
		try {
			// A pull, reset or rebase moved HEAD within its branch and may have rewritten files: a stored state is
			// restored only when it leaves the builders less to redo than the derived data on disk does.
			WithinBranchMove move = null;
			if (withinBranch) {
				Head derived = disk.derived();
				disk.movedWithinBranch(target, false); // unknown until restored or built
				move = WithinBranchMove.measure(repository.git, derived);
				laps.lap("compared"); //$NON-NLS-1$
				if (move.nothingToRedo()) {
					skipped(repository, target, start, withinBranchMessage);
					return;
				}
			}
			if (move == null) {
				try {
					SubMonitor saving = progress.split(30);
					if (!disk.savedAheadFor(target)) {
						saveLeft(repository, target, projects, start, saving);
					}
					laps.lap("save left"); //$NON-NLS-1$
				} catch (CoreException e) {
					// the state being left is lost, the one entered can still be restored
					serviceFailed(e);
				}
			}
			disk.savedAhead(target); // the refreshes below must not try to save again
			List<StateInfo> stored = states.states(repository.gitDir);
			laps.lap("states listed"); //$NON-NLS-1$
			Object pick = picker.pick(repository.git, stored, target.commitId(), progress.split(5));
			laps.lap("picked"); //$NON-NLS-1$
			pick = nearerFromRemote(repository, target, pick, progress.split(15));
			laps.lap("remote"); //$NON-NLS-1$
			if (move != null && !(pick instanceof StatePicker.Pick p && move.lessToRedoFrom(p.state()))) {
				skipped(repository, target, start, withinBranchMessage);
				return;
			}
			if (pick instanceof StatePicker.NoPick none) {
				skipped(repository, target, start, Messages.bind(Messages.Switch_nothingRestored,
						new Object[] { name, before.describe(), target.describe(), none.reason() }));
				return;
			}
			StateInfo state = ((StatePicker.Pick) pick).state();
			if (disk.isStoredStateOf(state.commitId())) {
				// e.g. a new branch made from the commit being left: restoring would write nothing, and the files
				// the checkout changed reach the builders through the refresh anyway
				skipped(repository, target, start, Messages.bind(Messages.Switch_alreadyOnDisk,
						new Object[] { name, before.describe(), target.describe(), disk.derived().shortId() }));
				return;
			}
			// the restore compares the working tree with the state: Git reads it meanwhile (the refresh writes no file),
			// unless the move within the branch has read it already
			CompletableFuture<WorkingTreeStatus> status = own == null ? null
					: move != null ? CompletableFuture.completedFuture(move.status())
							: WorkingTreeStatus.readAhead(repository.git);
			// bring the workspace in sync with the checked-out tree first, so that data restored for resources the
			// checkout created (markers on them) finds them, and builders see the sources that changed
			CheckoutRefresh.run(repository.git, before.commitId(), target.commitId(), projects, progress.split(10));
			laps.lap("refreshed"); //$NON-NLS-1$
			disk.restoring();
			RestoreResult result;
			try {
				result = own != null ? own.restore(repository.gitDir, state.commitId(), status, progress.split(40))
						: states.restore(repository.gitDir, state.commitId(), progress.split(40));
			} catch (CoreException e) {
				serviceFailed(e); // the data stays unknown: builders rebuild as if Branchstate were absent
				return;
			}
			laps.lap("restored"); //$NON-NLS-1$
			disk.restored(new Head(result.state() != null ? result.state().commitId() : state.commitId(),
					target.branch()));
		} catch (CoreException e) {
			failed(repository, before, target, start, e);
		} catch (IOException | RuntimeException e) {
			if (e instanceof OperationCanceledException canceled) {
				throw canceled;
			}
			failed(repository, before, target, start,
					new CoreException(Status.error(String.valueOf(e.getMessage()), e)));
		}
	}

	/**
	 * Fetches a state from the remote store when it has one nearer to {@code target} than the local pick (the exact
	 * commit, or a nearer ancestor), within the fetch deadline, and picks again. Any failure of the remote store is a
	 * miss, told in the Error Log as information: the switch goes on with the local pick, or the builders build.
	 */
	private Object nearerFromRemote(TrackedRepository repository, Head target, Object localPick, SubMonitor monitor) {
		int localDistance = localPick instanceof StatePicker.Pick p ? p.distance() : Integer.MAX_VALUE;
		if (localDistance == 0 || remote == null || !remote.usableForSwitch()) {
			return localPick;
		}
		try {
			Set<String> published = remote.publishedCommits(repository.git, repository.gitDir);
			Object nearest = picker.nearest(repository.git, published, target.commitId(), monitor.split(5));
			if (!(nearest instanceof StatePicker.Nearest n) || n.distance() >= localDistance) {
				return localPick;
			}
			remote.fetch(repository.git, repository.gitDir, n.commit(), RemoteConfiguration.fetchDeadline(),
					monitor.split(90));
			return picker.pick(repository.git, states.states(repository.gitDir), target.commitId(), monitor.split(5));
		} catch (CoreException | IOException | RuntimeException e) {
			if (e instanceof OperationCanceledException canceled) {
				throw canceled;
			}
			String reason = e instanceof CoreException ce ? ce.getStatus().getMessage() : String.valueOf(e.getMessage());
			Log.info(Messages.bind(Messages.Switch_remoteMissed, repository.displayName(), reason));
			return localPick;
		}
	}

	/**
	 * Saves the derived data being left now, ahead of the rest of the protocol, when HEAD moved to another branch:
	 * called before a refresh, which would drop the markers of the files the checkout deleted. Only reads the
	 * workspace. The protocol then finds an identical state and does not save again.
	 */
	void saveAhead(TrackedRepository repository, Head target, IProgressMonitor monitor) {
		DiskState disk = repository.disk;
		Head before = disk.handled();
		if (before == null || before.equals(target)
				|| !before.detached() && Objects.equals(before.branch(), target.branch())) {
			return;
		}
		List<IProject> projects = repository.projectsOnDisk();
		if (disk.savedAheadFor(target) || !autoSwitch(projects)) {
			return;
		}
		disk.savedAhead(target);
		long start = System.nanoTime();
		try {
			saveLeft(repository, target, projects, start, SubMonitor.convert(monitor));
		} catch (CoreException e) {
			serviceFailed(e);
		}
	}

	/** @return whether the last move of HEAD was a commit (its reflog entry says so) */
	private static boolean madeByCommit(TrackedRepository repository) {
		try {
			// Repository's reader: RefDatabase has one only since JGit 7.2 (deprecating this one), JGit 7.0 (Eclipse
			// 4.33, the oldest release supported) has only this
			ReflogReader reflog = repository.git.getReflogReader(Constants.HEAD);
			ReflogEntry last = reflog == null ? null : reflog.getLastEntry();
			return last != null && last.getComment().startsWith("commit"); //$NON-NLS-1$
		} catch (IOException e) {
			return false;
		}
	}

	/** Step 3: saves the derived data being left, if {@link DiskState#toSave} says so. */
	private void saveLeft(TrackedRepository repository, Head target, List<IProject> projects, long start,
			SubMonitor monitor) throws CoreException {
		DiskState.Decision decision = decideSave(repository, projects);
		if (decision instanceof DiskState.Skip skip) {
			skipped(repository, target, start, skip.reason());
		} else if (decision instanceof DiskState.Save save) {
			save(repository, save.head(), monitor);
		}
	}

	/** @return what {@link DiskState#toSave} says of the repository's derived data now */
	DiskState.Decision decideSave(TrackedRepository repository, List<IProject> projects) {
		String patterns = preference(projects, BranchstatePreferences.BRANCH_PATTERNS, "*"); //$NON-NLS-1$
		return repository.disk.toSave(repository.displayName(), patterns,
				commit -> states.states(repository.gitDir).stream().anyMatch(s -> s.commitId().equals(commit)));
	}

	/**
	 * Saves the derived data as the state of {@code head}. The service saves only derived data that every builder
	 * has built completely; otherwise it tells why in a SKIPPED event and throws an INFO status, which ends here.
	 * Any other failure has been told in a FAILED event when this throws; the caller logs it.
	 */
	void save(TrackedRepository repository, Head head, IProgressMonitor monitor) throws CoreException {
		try {
			states.save(repository.gitDir, head.commitId(), head.branch(), monitor);
		} catch (CoreException e) {
			if (e.getStatus().getSeverity() == IStatus.INFO) {
				return; // not saved, and the service said why
			}
			throw e;
		}
		repository.disk.saved(head);
	}

	/**
	 * Takes the repository's projects whose tracked description the move of HEAD deleted out of the workspace, before
	 * anything saves the workspace (see {@link RemovedProjects}: left in it, core.resources writes a description back
	 * into the work tree). Open ones (a checkout under the running IDE) and closed ones (core.resources closes them at
	 * start-up: a checkout while the IDE was closed). A failure leaves them in the workspace, as without Branchstate.
	 */
	private static void removeProjectsGone(TrackedRepository repository, Head before, Head target,
			IProgressMonitor monitor) {
		if (repository.git.isBare()) {
			return;
		}
		List<IProject> removed;
		try {
			removed = RemovedProjects.removeFromWorkspace(
					RemovedProjects.removedBy(repository.git, before.commitId(), target.commitId()), monitor);
		} catch (CoreException e) {
			Log.log(e.getStatus());
			return;
		} catch (IOException e) {
			Log.warning(e.getMessage(), e);
			return;
		}
		for (IProject project : removed) {
			Log.info(Messages.bind(Messages.Switch_projectRemoved, project.getName(), repository.displayName()));
		}
	}

	private void skipped(TrackedRepository repository, Head target, long start, String message) {
		states.fireEvent(new StateEvent(Kind.SKIPPED, repository.gitDir, target.commitId(), target.branch(), message,
				Status.info(message), 0, 0, 0, Duration.ofNanos(System.nanoTime() - start)));
	}

	/**
	 * Fail safe for a failure of the protocol itself (a refresh, reading the repository): one Error Log entry and
	 * one FAILED event.
	 */
	private void failed(TrackedRepository repository, Head before, Head target, long start, CoreException exception) {
		String message = Messages.bind(Messages.Switch_failed, new Object[] { repository.displayName(),
				before.describe(), target.describe(), exception.getStatus().getMessage() });
		IStatus status = Status.error(message, exception);
		Log.log(status);
		states.fireEvent(new StateEvent(Kind.FAILED, repository.gitDir, target.commitId(), target.branch(), message,
				status, 0, 0, 0, Duration.ofNanos(System.nanoTime() - start)));
	}

	/**
	 * A save or restore of the state service failed: it told its listeners (FAILED, or SKIPPED with an INFO status
	 * when there was nothing to do) and does not log; the one Error Log entry is written here.
	 */
	static void serviceFailed(CoreException e) {
		if (e.getStatus().getSeverity() != IStatus.INFO) {
			Log.log(e.getStatus());
		}
	}

	/** @return whether automatic switching is on: off when the instance or any project of the repository says so */
	public static boolean autoSwitch(List<IProject> projects) {
		IPreferencesService service = Platform.getPreferencesService();
		if (projects.isEmpty()) {
			return service.getBoolean(BranchstatePreferences.NODE, BranchstatePreferences.AUTO_SWITCH, true, null);
		}
		for (IProject project : projects) {
			if (!service.getBoolean(BranchstatePreferences.NODE, BranchstatePreferences.AUTO_SWITCH, true,
					contexts(project))) {
				return false;
			}
		}
		return true;
	}

	/** @return the value for the first project of the repository (project scope, then instance scope) */
	static String preference(List<IProject> projects, String key, String defaultValue) {
		IScopeContext[] contexts = projects.isEmpty() ? null : contexts(projects.get(0));
		return Platform.getPreferencesService().getString(BranchstatePreferences.NODE, key, defaultValue, contexts);
	}

	private static IScopeContext[] contexts(IProject project) {
		return new IScopeContext[] { new ProjectScope(project), InstanceScope.INSTANCE };
	}

	/**
	 * @param patterns globs separated by commas or line breaks; {@code *} matches any characters including
	 *                 {@code /}, {@code ?} one character
	 * @return whether the branch matches one of them
	 */
	public static boolean matches(String patterns, String branch) {
		for (String glob : patterns.split("[,\\r\\n]+")) { //$NON-NLS-1$
			String trimmed = glob.strip();
			if (!trimmed.isEmpty() && toRegex(trimmed).matcher(branch).matches()) {
				return true;
			}
		}
		return false;
	}

	private static Pattern toRegex(String glob) {
		List<String> parts = new ArrayList<>();
		StringBuilder literal = new StringBuilder();
		for (char c : glob.toCharArray()) {
			if (c == '*' || c == '?') {
				if (!literal.isEmpty()) {
					parts.add(Pattern.quote(literal.toString()));
					literal.setLength(0);
				}
				parts.add(c == '*' ? ".*" : "."); //$NON-NLS-1$ //$NON-NLS-2$
			} else {
				literal.append(c);
			}
		}
		if (!literal.isEmpty()) {
			parts.add(Pattern.quote(literal.toString()));
		}
		return Pattern.compile(String.join("", parts)); //$NON-NLS-1$
	}
}
