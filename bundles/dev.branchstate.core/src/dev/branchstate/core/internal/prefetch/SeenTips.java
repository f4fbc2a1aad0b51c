package dev.branchstate.core.internal.prefetch;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

import org.eclipse.jgit.lib.ObjectId;

/**
 * The tips of the remote-tracking branches that the prefetch has handled, per repository, kept across sessions: a tip
 * that differs has moved (a fetch, in Eclipse or while it was closed). A repository seen for the first time (a clone
 * imported) has its tips taken as they are: only what moves after that is prefetched. A tip is recorded once its
 * state is fetched, found local or found unpublished; a prefetch cut short leaves the rest to its next run.
 */
final class SeenTips {

	private final PropertiesFile file;
	private Properties tips;

	SeenTips(Path file) {
		this.file = new PropertiesFile(file);
	}

	/** @return whether the repository has been seen before (in this session or an earlier one) */
	synchronized boolean known(File gitDir) throws IOException {
		return load().containsKey(repositoryKey(gitDir));
	}

	/** @return the tips of {@code current} that differ from those handled */
	synchronized Map<String, ObjectId> moved(File gitDir, Map<String, ObjectId> current) throws IOException {
		Properties seen = load();
		Map<String, ObjectId> moved = new LinkedHashMap<>();
		current.forEach((ref, tip) -> {
			if (!tip.name().equals(seen.getProperty(key(gitDir, ref)))) {
				moved.put(ref, tip);
			}
		});
		return moved;
	}

	/** Records tips as handled. */
	synchronized void handled(File gitDir, Map<String, ObjectId> handled) throws IOException {
		Properties seen = load();
		seen.setProperty(repositoryKey(gitDir), ""); //$NON-NLS-1$
		handled.forEach((ref, tip) -> seen.setProperty(key(gitDir, ref), tip.name()));
		file.write(seen);
	}

	private Properties load() throws IOException {
		if (tips == null) {
			tips = file.read();
		}
		return tips;
	}

	private static String repositoryKey(File gitDir) {
		return gitDir.getPath();
	}

	private static String key(File gitDir, String ref) {
		return gitDir.getPath() + '|' + ref;
	}
}
