package dev.branchstate.core.internal.service;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.IPath;

import dev.branchstate.archive.ArchiveEntry;
import dev.branchstate.archive.ArchiveReader;
import dev.branchstate.archive.ExtractOptions;
import dev.branchstate.archive.ExtractPlan;
import dev.branchstate.core.IRestoreContext;

/** The part of a stored state that belongs to one contributor and one project, read-only. */
final class RestoreContext implements IRestoreContext {

	private final ArchiveReader reader;
	private final String prefix;
	private final IProject project;
	private final String stateCommitId;
	private final String currentCommitId;
	private final int dataVersion;
	/** What differs from the state in the working tree (found while the restore plans and checks). */
	private final StateChanges changes;
	/**
	 * What every extraction and plan of this part shares: workers and the restore's executor, cancel, the bound of
	 * the state's data size, the files known on disk.
	 */
	private final ExtractOptions base;
	/** What the contributor's prepare returned, set before its restore is called. */
	private volatile Object prepared;
	final AtomicLong written = new AtomicLong();
	final AtomicLong deleted = new AtomicLong();
	/** Sub-prefix (as {@link #extract} normalizes it) → what extracting it will write, found before anything was. */
	private final Map<String, ExtractPlan> plans = new HashMap<>();

	RestoreContext(ArchiveReader reader, StateLayout.Part part, IProject project, String stateCommitId,
			String currentCommitId, StateChanges changes, ExtractOptions base) {
		this.reader = reader;
		this.base = base;
		this.prefix = part.prefix();
		this.project = project;
		this.stateCommitId = stateCommitId;
		this.currentCommitId = currentCommitId;
		this.dataVersion = part.version();
		this.changes = changes;
	}

	@Override
	public IProject project() {
		return project;
	}

	@Override
	public String stateCommitId() {
		return stateCommitId;
	}

	@Override
	public String currentCommitId() {
		return currentCommitId;
	}

	@Override
	public int dataVersion() {
		return dataVersion;
	}

	@Override
	public Set<IPath> changedPaths() {
		return changes.getUnchecked().byProject().getOrDefault(project, Set.of());
	}

	@Override
	public Instant changedPathsComparedAt() {
		WorkingTreeComparison c = changes.getUnchecked().comparison();
		return c == null ? null : c.at();
	}

	@Override
	public Predicate<IPath> changedPathsCoverage() {
		WorkingTreeComparison c = changes.getUnchecked().comparison();
		IProject p = project;
		return c == null ? path -> false : path -> c.compared(p, path);
	}

	@Override
	public Object prepared() {
		return prepared;
	}

	void prepared(Object value) {
		prepared = value;
	}

	@Override
	public List<String> entryNames() {
		return reader.entries(prefix).stream().filter(e -> !e.isDirectory()).map(ArchiveEntry::name)
				.map(n -> n.substring(prefix.length())).sorted().toList();
	}

	@Override
	public boolean has(String name) {
		return reader.entry(prefix + name).filter(e -> !e.isDirectory()).isPresent();
	}

	@Override
	public InputStream open(String name) throws IOException {
		return reader.openStream(prefix + name);
	}

	/**
	 * Finds what {@link #extract} of the sub-prefix into the directory will write (before anything of the restore is
	 * written); that extraction then writes exactly it.
	 */
	ExtractPlan plan(String subPrefix, Path directory) throws IOException {
		String p = normalized(subPrefix);
		ExtractPlan plan = reader.plan(directory, options(p));
		plans.put(p, plan);
		return plan;
	}

	/** @return the plans made so far */
	Collection<ExtractPlan> plans() {
		return List.copyOf(plans.values());
	}

	private static String normalized(String subPrefix) {
		return subPrefix.isEmpty() || subPrefix.endsWith("/") ? subPrefix : subPrefix + '/'; //$NON-NLS-1$
	}

	private ExtractOptions options(String normalizedSubPrefix) {
		return base.withPrefix(prefix + normalizedSubPrefix).withDifferential(true);
	}

	@Override
	public ExtractResult extract(String subPrefix, Path directory, boolean mirror) throws IOException {
		String p = normalized(subPrefix);
		ExtractOptions options = options(p).withMirror(mirror);
		ExtractPlan plan = plans.remove(p); // (once: what it found is stale after the extraction)
		if (plan != null && plan.target().equals(directory.toAbsolutePath().normalize())) {
			options = options.withPlan(plan);
		}
		dev.branchstate.archive.ExtractResult r = reader.extract(directory, options);
		List<String> files = r.written().stream().filter(n -> !n.endsWith("/")).toList(); //$NON-NLS-1$
		written.addAndGet(files.size());
		deleted.addAndGet(r.removed().stream().filter(n -> !n.endsWith("/")).count()); //$NON-NLS-1$
		return new ExtractResult(files, r.removed(), r.skipped(),
				r.written().stream().filter(n -> n.endsWith("/")).toList()); //$NON-NLS-1$
	}
}
