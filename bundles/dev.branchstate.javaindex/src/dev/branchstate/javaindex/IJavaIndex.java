package dev.branchstate.javaindex;

import java.util.List;
import java.util.function.Consumer;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.IProgressMonitor;

/**
 * The Java index, an OSGi service. It indexes every accessible project that holds {@code *.java} files outside
 * derived folders (no Java nature needed), in the background, after every change of the workspace; a file is parsed
 * again only when its content hash changed. Queries answer from memory what has been indexed so far; call
 * {@link #join} first to wait for pending changes.
 */
public interface IJavaIndex {

	/** @return the declarations with this simple name in every indexed project, sorted by file, container, name */
	List<Declaration> declarations(String simpleName);

	/** @return the declarations with this simple name in one project, sorted */
	List<Declaration> declarations(IProject project, String simpleName);

	/**
	 * @return workspace-relative paths of the compilation units that use the simple name anywhere except in a
	 *         declaration of it (types, members, locals, labels alike: the parser has no bindings), sorted
	 */
	List<IPath> filesReferencing(String simpleName);

	/** @return the same for one project */
	List<IPath> filesReferencing(IProject project, String simpleName);

	/** @return project-relative paths of the compilation units indexed in the project, sorted */
	List<IPath> files(IProject project);

	/** @return the content hash (hex SHA-256) the index has for a compilation unit, or {@code null} */
	String contentHash(IProject project, IPath path);

	/**
	 * Waits until every change known to the index is indexed.
	 *
	 * @throws InterruptedException when interrupted while waiting
	 */
	void join(IProgressMonitor monitor) throws InterruptedException;

	/** Registers a listener called after every indexing pass (on the indexer's thread). */
	void addListener(Consumer<IndexUpdate> listener);

	void removeListener(Consumer<IndexUpdate> listener);
}
