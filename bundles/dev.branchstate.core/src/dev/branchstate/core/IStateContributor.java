package dev.branchstate.core;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.jobs.Job;

/**
 * Provides one kind of derived data of a project (build output, an index, markers, a model) to Branchstate.
 * Contributed through the extension point {@code dev.branchstate.core.contributors}; every call is made through
 * {@code SafeRunner}, so a contributor that throws is logged and skipped without harming the others.
 * <p>
 * Implementations are stateless with respect to a single save or restore: everything they need comes with the
 * context. They may be called from any thread, never from the UI thread.
 */
public interface IStateContributor {

	/**
	 * @return the version of the data this contributor writes. A state written with version N is restored by this
	 *         contributor only if {@link #canRead(int)} accepts N.
	 */
	int version();

	/**
	 * @param dataVersion the version a stored state was written with
	 * @return whether {@link #restore} understands data of that version; by default only its own version
	 */
	default boolean canRead(int dataVersion) {
		return dataVersion == version();
	}

	/**
	 * The builders whose own last built state this contributor saves and restores (JDT's Java builder, say), as
	 * their ids appear in a project's build spec. Their output must come back in the same state (the derived
	 * resources that Eclipse marks derived are restored by the built-in contributor).
	 * <p>
	 * Such a contributor's data is restored only when the builders can be handed it: the project's output is
	 * restored in the same state, no file of the state is missing from the working tree, and the projects it
	 * references are restored too. After a restore in which every part of the project succeeded, those builders
	 * start from the restored commit and build only the files that differ from it; when another part of the project
	 * failed, they build it in full. Empty by default: builders see the whole change of the checkout.
	 *
	 * @return builder ids, e.g. {@code org.eclipse.jdt.core.javabuilder}
	 */
	default Set<String> builderStates() {
		return Set.of();
	}

	/**
	 * Folders of the project that a builder of this contributor writes its output to (a Java project's output
	 * folders, from its classpath), project-relative. The built-in derived-resources contributor saves and restores
	 * them with the resources Eclipse marks derived, whether or not they are marked, so that the user sets no glob
	 * for them. A folder outside the project, the project itself or a folder holding a Git-tracked file is never
	 * saved or written. Called for the projects this contributor {@linkplain #appliesTo applies to}; empty by default.
	 *
	 * @return project-relative folders, e.g. {@code bin}
	 * @throws CoreException when the project's configuration cannot be read; its folders are then not named
	 */
	default Set<IPath> derivedFolders(IProject project) throws CoreException {
		return Set.of();
	}

	/**
	 * Why the project's data is not the complete result of its last build, as far as this contributor knows: JDT has
	 * no build state after a build that failed, say, while the build manager counts that build as done. Asked before
	 * every save, for the projects this contributor {@linkplain #appliesTo applies to}: a reason keeps the state from
	 * being saved, and is told as the reason why (a state saved then would bring back output that its builder does not
	 * believe in). Cheap; empty by default.
	 *
	 * @return the reason, or empty when nothing this contributor knows of keeps the project from being saved
	 */
	default Optional<String> whyNotBuilt(IProject project) {
		return Optional.empty();
	}

	/**
	 * What, besides this contributor's {@linkplain #version() data version}, makes its data of the project unusable
	 * on another machine: the builder's own version, the libraries outside the workspace that the output was built
	 * against (their content, not their time stamps, which differ between machines). A state published from CI is
	 * fetched only by an IDE where every contributor of every project tells the same. Called for the projects this
	 * contributor {@linkplain #appliesTo applies to}, when states are published and looked up; may read files, and
	 * should cache what is costly. Empty by default: the data depends on the sources alone.
	 *
	 * @return a description, stable across machines for what is the same (no absolute path that differs between a
	 *         CI machine and a developer's unless the data holds it)
	 * @throws CoreException when it cannot be told; no remote state is then used or published for the project
	 */
	default String compatibility(IProject project) throws CoreException {
		return ""; //$NON-NLS-1$
	}

	/**
	 * Whether this contributor's data of the project, saved when {@link #compatibility} told {@code then}, was built
	 * against what the project is built against now, so that it may be restored. Asked before a restore writes
	 * anything, right after the checkout: the files of the commit restored are on disk, but the workspace is not
	 * refreshed yet, so what the IDE's models tell of the project's Git-tracked configuration (its build path, a
	 * plug-in's manifest, its {@code .settings}) may still be that of the branch left. A contributor whose description
	 * comes from that configuration checks what {@code then} names (the libraries still there with the same content)
	 * and reads the commit's configuration from disk, instead of telling again from its models; a configuration that
	 * differs from the state's is its builder's to see. By default {@code then} must equal what it tells now.
	 *
	 * @param then what {@link #compatibility} told when the data was saved ({@code ""} when it told nothing, an
	 *             unknown string when the state is older than this method's contract)
	 * @return {@code true} when the data may be restored; {@code false} leaves the project to its builders
	 * @throws CoreException when it cannot be told; the project is then left to its builders
	 */
	default boolean isBuiltAgainst(IProject project, String then) throws CoreException {
		return then.equals(compatibility(project));
	}

	/**
	 * @return whether this contributor has data for the project (cheap: no I/O beyond metadata)
	 */
	boolean appliesTo(IProject project);

	/**
	 * Writes this contributor's data for {@link ISaveContext#project()} into the state being saved.
	 *
	 * @throws CoreException when the data cannot be saved; the state is then saved without this contributor
	 */
	void save(ISaveContext context, IProgressMonitor monitor) throws CoreException;

	/**
	 * The folders that {@link #restore} will extract into with {@link IRestoreContext#extract}, asked before anything
	 * of the restore is written, in the same workspace operation and with the same context: each entry maps the
	 * prefix {@code restore} passes to {@code extract} to the folder it passes. Branchstate then finds which of those
	 * entries differ from the files already in the folders (a stat per file), reads and checks only those before
	 * anything is written (with every entry of this contributor outside these prefixes), and the extraction writes
	 * exactly them: the cost of a restore follows the change, not the size of the state. When every folder named (by
	 * every contributor of the restore) is empty or absent, their entries are checked as they are written instead
	 * (the archive is read once): a damaged one then fails {@code extract} with files of it already written, which
	 * {@code restore} removes as its transactional contract says, leaving the folder empty as it was. An extraction
	 * that was not named here still works; its entries are checked with the rest. Empty by default: every entry is
	 * checked.
	 *
	 * @return prefix → folder, in the order {@code restore} will extract them
	 * @throws CoreException when they cannot be told; every entry of the contributor is then checked
	 */
	default Map<String, Path> extractionTargets(IRestoreContext context) throws CoreException {
		return Map.of();
	}

	/**
	 * Reads and decodes ahead what {@link #restore} will need of this part of the state, so that the decoding runs
	 * while other parts are written: called on a thread of the restore's own, once the archive has been checked,
	 * before {@code restore} is called with the same context, and possibly while other contributors restore their
	 * parts. It may read the state ({@link IRestoreContext#open}, {@link IRestoreContext#entryNames}) and decode what it
	 * read; it must not change the workspace, the disk or anything {@code restore} of another part reads, nor take a
	 * scheduling rule or a lock that a workspace operation may hold. {@code restore} gets what it returned from
	 * {@link IRestoreContext#prepared()}. A failure fails the restore of this part, as a failure of {@code restore}
	 * does. Nothing by default.
	 *
	 * @return what {@code restore} needs, or {@code null}
	 * @throws CoreException when the part cannot be read; its restore then fails
	 */
	default Object prepare(IRestoreContext context, IProgressMonitor monitor) throws CoreException {
		return null;
	}

	/**
	 * Restores this contributor's data for {@link IRestoreContext#project()} from a stored state, then brings it up
	 * to date for {@link IRestoreContext#changedPaths()} (or leaves those to the builders). Must be transactional:
	 * on failure or cancel, leave the data as it was or as if it had never been restored (e.g. removed, so that it
	 * is rebuilt).
	 *
	 * @throws CoreException when the data cannot be restored; the project is then rebuilt normally
	 */
	void restore(IRestoreContext context, IProgressMonitor monitor) throws CoreException;

	/**
	 * A switch of the Git repository that holds {@code projects} begins: the checkout's change is about to reach the
	 * workspace (its refresh) and a state may then be restored. A contributor whose data a background indexer keeps up
	 * to date holds that indexer here, so that it does not index files the restore then makes moot; the work the
	 * indexer was given meanwhile is the contributor's to keep or discard in {@link #restore}. Cheap, no I/O.
	 * {@link #switchEnded} always follows, with the same projects, once the switch is handled (restored or not).
	 * Nothing by default.
	 */
	default void switchStarting(List<IProject> projects) {
		// nothing held
	}

	/** The switch that {@link #switchStarting} announced is handled: release what it holds. Nothing by default. */
	default void switchEnded(List<IProject> projects) {
		// nothing held
	}

	/**
	 * Jobs of the contributor's model that must have run before a switch of {@code projects} touches the workspace:
	 * typically the model's start-up job that hands it the changes made while it was not running (JDT's "Processing
	 * Java changes since last activation"), which would otherwise hand it the checkout's change once more after the
	 * switch, and have its indexer redo what the restore made moot. May start the model. The switch's job waits until
	 * they are done, without holding its scheduling rule (they usually need it). None by default.
	 */
	default List<Job> jobsBeforeSwitch(List<IProject> projects) {
		return List.of();
	}
}
