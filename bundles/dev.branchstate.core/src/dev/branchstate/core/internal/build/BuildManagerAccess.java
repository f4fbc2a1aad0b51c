package dev.branchstate.core.internal.build;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import org.eclipse.core.internal.events.BuildCommand;
import org.eclipse.core.internal.events.BuildManager;
import org.eclipse.core.internal.events.BuilderPersistentInfo;
import org.eclipse.core.internal.events.ResourceDeltaFactory;
import org.eclipse.core.internal.resources.Project;
import org.eclipse.core.internal.resources.ProjectDescription;
import org.eclipse.core.internal.resources.Workspace;
import org.eclipse.core.internal.watson.ElementTree;
import org.eclipse.core.resources.ICommand;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResourceDelta;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.IncrementalProjectBuilder;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.Platform;
import org.eclipse.osgi.util.NLS;

import dev.branchstate.core.internal.Log;
import dev.branchstate.core.internal.Messages;

/**
 * The one class that reads, hands over and resets the builders' last built trees, which the platform keeps in its
 * internal build manager (there is no API for them). Every call goes through a capability check: when the internal classes
 * are missing or behave unexpectedly (another platform release), it says so once in the Error Log and gives the
 * safe answer from then on — "not built" (nothing is saved as a build that may be incomplete), "not contained"
 * (no restore that a builder could not follow), and no reset (the caller falls back to a clean build).
 * <p>
 * Comparing with the workspace's current tree freezes it, which only the thread holding the workspace lock may do:
 * that comparison runs inside a workspace operation (no scheduling rule), or in the notification the caller is in,
 * and goes on in a new working tree afterwards, as the build manager does.
 */
public final class BuildManagerAccess {

	private static final AtomicBoolean UNAVAILABLE = new AtomicBoolean();

	private BuildManagerAccess() {
	}

	/** @return whether the internal build manager can be used (false once a call failed) */
	public static boolean available() {
		return !UNAVAILABLE.get();
	}

	/** Makes the capability check fail, or pass again (internal: tests of the fallback). */
	public static void setAvailable(boolean available) {
		UNAVAILABLE.set(!available);
	}

	/**
	 * Tells whether every builder of the project's build spec has built the workspace's current tree: it has a last
	 * built tree, and nothing changed since in the project or in the projects it reads (its interesting projects).
	 * Builders that are not installed, or that run on no incremental or automatic build, are not counted.
	 *
	 * @return why the derived data of the project may not be its complete build, or empty when it is
	 */
	public static Optional<String> whyNotBuilt(IProject project) {
		if (!project.isAccessible()) {
			return Optional.empty();
		}
		ICommand[] spec;
		try {
			spec = project.getDescription().getBuildSpec();
		} catch (CoreException e) {
			return Optional.of(e.getStatus().getMessage());
		}
		if (spec.length == 0) {
			return Optional.empty();
		}
		if (!available()) {
			return Optional.of(Messages.Build_unknown);
		}
		String[] reason = new String[1];
		try {
			IWorkspace workspace = project.getWorkspace();
			if (workspace.isTreeLocked()) {
				reason[0] = inspect(project, spec); // in a resource change notification: the lock is held
			} else {
				workspace.run(m -> reason[0] = inspect(project, spec), null, IWorkspace.AVOID_UPDATE, null);
			}
		} catch (CoreException e) {
			return Optional.of(e.getStatus().getMessage());
		} catch (LinkageError | RuntimeException e) {
			disable(e);
			return Optional.of(Messages.Build_unknown);
		}
		return Optional.ofNullable(reason[0]);
	}

	private static String inspect(IProject project, ICommand[] spec) throws CoreException {
		Workspace workspace = (Workspace) project.getWorkspace();
		List<BuilderPersistentInfo> infos = builtStates(workspace.getBuildManager(), project);
		ElementTree current = workspace.getElementTree();
		boolean working = !current.isImmutable();
		try {
			return inspect(project, spec, workspace, infos, current);
		} finally {
			if (working && current.isImmutable()) {
				// comparing froze the tree of the operation we run in: go on in a new layer, as the build manager does
				workspace.newWorkingTree();
			}
		}
	}

	private static String inspect(IProject project, ICommand[] spec, Workspace workspace,
			List<BuilderPersistentInfo> infos, ElementTree current) {
		for (int i = 0; i < spec.length; i++) {
			ICommand command = spec[i];
			String builder = command.getBuilderName();
			if (!installed(builder) || !command.isBuilding(IncrementalProjectBuilder.INCREMENTAL_BUILD)
					&& !command.isBuilding(IncrementalProjectBuilder.AUTO_BUILD)) {
				continue;
			}
			BuilderPersistentInfo info = find(infos, builder, i);
			ElementTree built = info == null ? null : info.getLastBuiltTree();
			if (built == null) {
				return NLS.bind(Messages.Build_notBuilt, builder, project.getName());
			}
			List<IProject> read = new ArrayList<>();
			read.add(project);
			for (IProject other : info.getInterestingProjects()) {
				if (!other.equals(project)) {
					read.add(other);
				}
			}
			for (IProject p : read) {
				if (changed(workspace, built, current, p.getFullPath())) {
					return NLS.bind(Messages.Build_pending, new Object[] { builder, project.getName(), p.getName() });
				}
			}
		}
		return null;
	}

	private static boolean changed(Workspace workspace, ElementTree built, ElementTree current, IPath path) {
		if (!built.includes(path) && !current.includes(path)) {
			return false;
		}
		IResourceDelta delta = ResourceDeltaFactory.computeDelta(workspace, built, current, path, -1);
		return delta != null && (delta.getKind() != IResourceDelta.NO_CHANGE || delta.getAffectedChildren().length > 0);
	}

	/**
	 * The last built state of each builder of the project: from the builder itself once it was instantiated in this
	 * session, else as the workspace read it at startup. The build manager's own list misses the latter after a
	 * restart: the configuration name of a builder that has none is read back as "" and looked up as null, so a
	 * builder that has not run since the restart would seem never to have built.
	 */
	private static ArrayList<BuilderPersistentInfo> builtStates(BuildManager manager, IProject project)
			throws CoreException {
		List<BuilderPersistentInfo> created = manager.createBuildersPersistentInfo(project);
		ArrayList<BuilderPersistentInfo> infos = created == null ? new ArrayList<>() : new ArrayList<>(created);
		List<BuilderPersistentInfo> stored = manager.getBuildersPersistentInfo(project);
		if (stored != null) {
			for (BuilderPersistentInfo info : stored) { // only builders not instantiated yet still have one here
				if (infos.stream().noneMatch(i -> i.getBuilderName().equals(info.getBuilderName())
						&& i.getBuildSpecIndex() == info.getBuildSpecIndex())) {
					infos.add(info);
				}
			}
		}
		return infos;
	}

	private static BuilderPersistentInfo find(List<BuilderPersistentInfo> infos, String builder, int index) {
		if (infos == null) {
			return null;
		}
		BuilderPersistentInfo byName = null;
		for (BuilderPersistentInfo info : infos) {
			if (info.getBuilderName().equals(builder)) {
				if (info.getBuildSpecIndex() == index || info.getBuildSpecIndex() == -1) {
					return info;
				}
				if (byName == null) {
					byName = info;
				}
			}
		}
		return byName;
	}

	private static boolean installed(String builder) {
		return Platform.getExtensionRegistry().getExtension(ResourcesPlugin.PI_RESOURCES, ResourcesPlugin.PT_BUILDERS,
				builder) != null;
	}

	/**
	 * @param paths project-relative paths
	 * @return whether the last built tree of every builder of the project holds each path: a builder then gets a
	 *         REMOVED delta for any of them that is gone, and drops what it built from it. {@code true} for a project
	 *         without builders; {@code false} when a builder has no tree or the internals cannot be read.
	 */
	public static boolean builtTreesContain(IProject project, Collection<IPath> paths) {
		if (paths.isEmpty() || !project.isAccessible()) {
			return true;
		}
		ICommand[] spec;
		try {
			spec = project.getDescription().getBuildSpec();
		} catch (CoreException e) {
			return false;
		}
		if (spec.length == 0) {
			return true;
		}
		if (!available()) {
			return false;
		}
		try {
			return contain(project, spec, paths); // reads only the last built trees, which are immutable
		} catch (CoreException e) {
			return false;
		} catch (LinkageError | RuntimeException e) {
			disable(e);
			return false;
		}
	}

	private static boolean contain(IProject project, ICommand[] spec, Collection<IPath> paths) throws CoreException {
		List<BuilderPersistentInfo> infos = builtStates(((Workspace) project.getWorkspace()).getBuildManager(), project);
		for (int i = 0; i < spec.length; i++) {
			if (!installed(spec[i].getBuilderName())) {
				continue;
			}
			BuilderPersistentInfo info = find(infos, spec[i].getBuilderName(), i);
			ElementTree built = info == null ? null : info.getLastBuiltTree();
			if (built == null) {
				return false;
			}
			for (IPath path : paths) {
				if (!built.includes(project.getFullPath().append(path))) {
					return false;
				}
			}
		}
		return true;
	}

	/**
	 * Makes every builder of the project forget what it built, so that its next build is a full one (what a
	 * builder does with no last built tree): for derived data that its builders can no longer trust. The caller
	 * holds the project's scheduling rule.
	 *
	 * @return whether it was done; {@code false} when the internals cannot be used
	 */
	public static boolean forgetBuiltState(IProject project) {
		if (!project.isAccessible() || !available()) {
			return false;
		}
		try {
			ProjectDescription description = ((Project) project).internalGetDescription();
			if (description == null) {
				return true;
			}
			BuildManager manager = ((Workspace) project.getWorkspace()).getBuildManager();
			for (ICommand command : description.getBuildSpec(false)) {
				((BuildCommand) command).setBuilders(null);
			}
			manager.setBuildersPersistentInfo(project, null);
			return true;
		} catch (LinkageError | RuntimeException e) {
			disable(e);
			return false;
		}
	}

	/**
	 * The hand-off: the given builders of each project take the workspace's current tree as their last built tree,
	 * so that their next build sees only what changes after it. Called inside the restore's workspace operation,
	 * after their output and their own state were restored and before the changed sources are touched. The other
	 * builders of the projects keep their trees.
	 *
	 * @param builders project → ids of the builders to hand the current tree to
	 * @return whether it was done; {@code false} when the internals cannot be used (nothing was changed then)
	 */
	public static boolean handOff(IWorkspace workspace, Map<IProject, Set<String>> builders) {
		if (!available()) {
			return false;
		}
		try {
			Workspace internal = (Workspace) workspace;
			ElementTree tree = internal.getElementTree();
			tree.immutable();
			internal.newWorkingTree();
			BuildManager manager = internal.getBuildManager();
			for (Map.Entry<IProject, Set<String>> e : builders.entrySet()) {
				IProject project = e.getKey();
				ProjectDescription description = ((Project) project).internalGetDescription();
				if (description == null) {
					continue;
				}
				ICommand[] spec = description.getBuildSpec(false);
				ArrayList<BuilderPersistentInfo> infos = builtStates(manager, project);
				for (int i = 0; i < spec.length; i++) {
					BuildCommand command = (BuildCommand) spec[i];
					String name = command.getBuilderName();
					if (!e.getValue().contains(name)) {
						continue;
					}
					BuilderPersistentInfo info = find(infos, name, i);
					if (info == null) {
						info = new BuilderPersistentInfo(project.getName(),
								command.supportsConfigs() ? project.getActiveBuildConfig().getName() : null, name, i);
						infos.add(info);
					}
					info.setLastBuildTree(tree);
					info.setInterestingProjects(interesting(info, project));
				}
				// builders are instantiated again with these infos: the handed-off ones with the tree, the others with
				// their own
				for (ICommand command : spec) {
					((BuildCommand) command).setBuilders(null);
				}
				manager.setBuildersPersistentInfo(project, infos);
			}
			return true;
		} catch (CoreException e) {
			Log.log(e.getStatus());
			return false;
		} catch (LinkageError | RuntimeException e) {
			disable(e);
			return false;
		}
	}

	/**
	 * @return the projects whose changes make the builder build again, until its next build names its own: those it
	 *         named when it last built, and every other project of the workspace. A builder handed the current tree
	 *         must build again when a project it reads changes after the restore, and must be given that project's
	 *         delta: JDT builds in full when a project it reads has none ("deltas are missing"). The projects it reads
	 *         are more than the project's references (platform and dynamic: JDT's required projects, PDE's required
	 *         bundles): a bundle of the workspace re-exported by a target platform bundle is on the classpath and
	 *         in no reference, and what the builder last named may be another branch's, or nothing (no last built
	 *         state in this session). Naming them all costs one build of each handed-off builder after a change
	 *         anywhere, which then names its own.
	 */
	private static IProject[] interesting(BuilderPersistentInfo info, IProject project) throws CoreException {
		Set<IProject> projects = new LinkedHashSet<>(Arrays.asList(info.getInterestingProjects()));
		projects.addAll(Arrays.asList(project.getReferencedProjects()));
		for (IProject other : project.getWorkspace().getRoot().getProjects()) {
			if (other.isAccessible()) {
				projects.add(other);
			}
		}
		projects.remove(project);
		return projects.toArray(IProject[]::new);
	}

	private static void disable(Throwable e) {
		if (UNAVAILABLE.compareAndSet(false, true)) {
			Log.warning(Messages.Build_internalsUnavailable, e);
		}
	}
}
