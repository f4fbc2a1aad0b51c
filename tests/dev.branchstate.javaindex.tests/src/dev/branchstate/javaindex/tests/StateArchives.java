package dev.branchstate.javaindex.tests;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Set;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.NullProgressMonitor;

import dev.branchstate.archive.ArchiveEntry;
import dev.branchstate.archive.ArchiveReader;
import dev.branchstate.archive.ArchiveWriter;
import dev.branchstate.archive.Archives;
import dev.branchstate.archive.ExtractOptions;
import dev.branchstate.archive.TreeFilter;
import dev.branchstate.archive.WriteOptions;
import dev.branchstate.core.IRestoreContext;
import dev.branchstate.core.ISaveContext;
import dev.branchstate.core.IStateContributor;

/**
 * Save and restore contexts over state archives of the real archive engine, for one contributor and one project:
 * what the state service hands a contributor, without the service.
 */
final class StateArchives {

	private static final String PREFIX = "c/dev.branchstate.javaindex/p/";

	private StateArchives() {
	}

	static void save(IStateContributor contributor, IProject project, String commitId, Path archive)
			throws IOException, CoreException {
		Files.createDirectories(archive.getParent());
		try (ArchiveWriter writer = Archives.newWriter(archive, WriteOptions.defaults())) {
			String prefix = PREFIX + project.getName() + '/';
			contributor.save(new ISaveContext() {
				@Override
				public IProject project() {
					return project;
				}

				@Override
				public String commitId() {
					return commitId;
				}

				@Override
				public void addFile(String name, Path file) throws IOException {
					writer.addFile(file, prefix + name);
				}

				@Override
				public void addTree(String treePrefix, Path root, List<String> includes, List<String> excludes)
						throws IOException {
					writer.addTree(root, prefix + treePrefix, TreeFilter.of(includes, excludes));
				}

				@Override
				public void addBytes(String name, byte[] content) throws IOException {
					writer.addBytes(prefix + name, content, ArchiveWriter.DEFAULT_FILE_MODE,
							FileTime.fromMillis(System.currentTimeMillis()));
				}
			}, new NullProgressMonitor());
			writer.commit();
		}
	}

	/** Writes a state archive by hand: the given entries as this contributor's data for the project. */
	static void write(IProject project, Path archive, java.util.Map<String, byte[]> entries) throws IOException {
		Files.createDirectories(archive.getParent());
		try (ArchiveWriter writer = Archives.newWriter(archive, WriteOptions.defaults())) {
			for (java.util.Map.Entry<String, byte[]> e : entries.entrySet()) {
				writer.addBytes(PREFIX + project.getName() + '/' + e.getKey(), e.getValue(),
						ArchiveWriter.DEFAULT_FILE_MODE, FileTime.fromMillis(0));
			}
			writer.commit();
		}
	}

	static void restore(IStateContributor contributor, IProject project, Path archive, String stateCommit,
			Set<IPath> changedPaths) throws IOException, CoreException {
		try (ArchiveReader reader = Archives.open(archive)) {
			String prefix = PREFIX + project.getName() + '/';
			contributor.restore(new IRestoreContext() {
				@Override
				public IProject project() {
					return project;
				}

				@Override
				public String stateCommitId() {
					return stateCommit;
				}

				@Override
				public String currentCommitId() {
					return stateCommit;
				}

				@Override
				public int dataVersion() {
					return contributor.version();
				}

				@Override
				public Set<IPath> changedPaths() {
					return changedPaths;
				}

				@Override
				public List<String> entryNames() {
					return reader.entries(prefix).stream().filter(e -> !e.isDirectory()).map(ArchiveEntry::name)
							.map(n -> n.substring(prefix.length())).sorted().toList();
				}

				@Override
				public InputStream open(String name) throws IOException {
					return reader.openStream(prefix + name);
				}

				@Override
				public IRestoreContext.ExtractResult extract(String sub, Path directory, boolean mirror)
						throws IOException {
					dev.branchstate.archive.ExtractResult r = reader.extract(directory, ExtractOptions.defaults().withPrefix(prefix + sub)
							.withDifferential(true).withMirror(mirror));
					return new IRestoreContext.ExtractResult(
							r.written().stream().filter(n -> !n.endsWith("/")).toList(),
							r.removed().stream().filter(n -> !n.endsWith("/")).toList(), r.skipped());
				}
			}, new NullProgressMonitor());
		}
	}
}
