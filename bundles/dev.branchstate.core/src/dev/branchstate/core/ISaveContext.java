package dev.branchstate.core;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import org.eclipse.core.resources.IProject;

/**
 * What a contributor gets to save its data of one project: entries it adds are kept in the state archive under a
 * part of the archive reserved for this contributor and project, so names only need to be unique per contributor
 * and project.
 */
public interface ISaveContext {

	IProject project();

	/** @return the commit id (40 hex digits) the state is saved for */
	String commitId();

	/**
	 * Adds one file. {@code name} is a relative, '/'-separated path inside this contributor's part.
	 */
	void addFile(String name, Path file) throws IOException;

	/**
	 * Adds a directory tree: every file under {@code root} whose root-relative path matches one of the include
	 * globs (all files when empty) and none of the exclude globs, named {@code prefix + relative path}.
	 */
	void addTree(String prefix, Path root, List<String> includes, List<String> excludes) throws IOException;

	/** Adds an entry with the given content. */
	void addBytes(String name, byte[] content) throws IOException;
}
