package dev.branchstate.core.internal.service;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;

import org.eclipse.core.resources.IProject;

import dev.branchstate.archive.ArchiveWriter;
import dev.branchstate.archive.TreeFilter;
import dev.branchstate.core.ISaveContext;

/**
 * The part of the state archive being written that belongs to one contributor and one project. Remembers a failure
 * of the archive writer itself (as opposed to a contributor's own failure): after one, the whole save fails.
 */
final class SaveContext implements ISaveContext {

	private final ArchiveWriter writer;
	private final String prefix;
	private final IProject project;
	private final String commitId;
	private IOException writerFailure;

	SaveContext(ArchiveWriter writer, String prefix, IProject project, String commitId) {
		this.writer = writer;
		this.prefix = prefix;
		this.project = project;
		this.commitId = commitId;
	}

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
		try {
			writer.addFile(file, prefix + checked(name));
		} catch (java.nio.file.NoSuchFileException e) {
			throw e; // the contributor's input, not the writer
		} catch (IOException e) {
			throw writerFailed(e);
		}
	}

	@Override
	public void addTree(String treePrefix, Path root, List<String> includes, List<String> excludes)
			throws IOException {
		String p = treePrefix.isEmpty() || treePrefix.endsWith("/") ? treePrefix : treePrefix + '/'; //$NON-NLS-1$
		try {
			writer.addTree(root, prefix + checked(p), TreeFilter.of(includes, excludes));
		} catch (IOException e) {
			throw writerFailed(e);
		}
	}

	@Override
	public void addBytes(String name, byte[] content) throws IOException {
		try {
			writer.addBytes(prefix + checked(name), content, ArchiveWriter.DEFAULT_FILE_MODE,
					FileTime.fromMillis(System.currentTimeMillis()));
		} catch (IOException e) {
			throw writerFailed(e);
		}
	}

	/** @return the failure of the archive writer, if any call hit one */
	IOException writerFailure() {
		return writerFailure;
	}

	private IOException writerFailed(IOException e) {
		if (writerFailure == null) {
			writerFailure = e;
		}
		return e;
	}

	private static String checked(String name) {
		if (name.startsWith("/") || name.contains("\\") || name.equals("..") || name.startsWith("../") //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$ //$NON-NLS-4$
				|| name.contains("/../") || name.endsWith("/..")) { //$NON-NLS-1$ //$NON-NLS-2$
			throw new IllegalArgumentException("entry name must be relative and '/'-separated: " + name); //$NON-NLS-1$
		}
		return name;
	}
}
