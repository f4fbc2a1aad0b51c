package dev.branchstate.core.internal.contributors;

import java.io.File;
import java.io.IOException;
import java.lang.ref.SoftReference;
import java.nio.file.Path;
import java.util.Optional;

import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;

/**
 * The Git index of the repository a folder lives in, read once and kept while its file is unchanged. A restore asks
 * for it twice per project (where its contributors extract, then what they restore), and a workspace's projects
 * usually share one repository: reading it each time cost a repository opened and the index parsed per question
 * (80 of each for the 40 projects of the scale benchmark). Only the last index read is kept, softly: the memory
 * is the JVM's to take back.
 */
final class GitIndexes {

	/** @param workTree the real path of the repository's work tree */
	record Index(Path workTree, DirCache entries) {
	}

	private static File lastFile;
	private static SoftReference<Index> last = new SoftReference<>(null);

	private GitIndexes() {
	}

	/**
	 * @return the index of the repository with a work tree that holds {@code folder}; empty when there is no
	 *         repository or it is bare
	 */
	static synchronized Optional<Index> of(Path folder) throws IOException {
		FileRepositoryBuilder builder = new FileRepositoryBuilder().findGitDir(folder.toFile());
		if (builder.getGitDir() == null) {
			return Optional.empty();
		}
		builder.setMustExist(true).setup();
		if (builder.isBare()) {
			return Optional.empty();
		}
		File indexFile = builder.getIndexFile();
		Index kept = last.get();
		if (kept != null && indexFile.equals(lastFile) && !kept.entries().isOutdated()) {
			return Optional.of(kept);
		}
		try (Repository repository = builder.build()) { // (reads the index with the repository's settings)
			Index index = new Index(repository.getWorkTree().toPath().toRealPath(), repository.readDirCache());
			lastFile = indexFile;
			last = new SoftReference<>(index);
			return Optional.of(index);
		}
	}
}
