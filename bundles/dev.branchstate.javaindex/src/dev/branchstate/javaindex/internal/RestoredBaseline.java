package dev.branchstate.javaindex.internal;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Predicate;

import org.eclipse.core.runtime.IPath;

import dev.branchstate.core.IRestoreContext;

/**
 * What a restore established about a project's Java files. The restore compared the working tree with the state
 * ({@link IRestoreContext#changedPathsComparedAt()}) and indexed the files it found changed; every other file it
 * looked at has the state's content, whose hash the restored index holds. So after the restore, the index's hash of
 * any file the comparison looked at is right as long as the file has not changed since the comparison began: the
 * work the checkout's refresh queues for such a file needs no read.
 * <p>
 * "Not changed since" is told by the inode change time, which tools such as {@code tar} or {@code rsync} cannot set
 * back as they set the modification time (the {@code unix} attribute view; without it nothing is vouched for). The
 * comparison's instant is moved back by {@link #CLOCK_SLACK}: file systems stamp change times with a coarse clock,
 * up to a tick behind the precise one. Files Git ignores were not compared: never vouched for.
 */
final class RestoredBaseline {

	static final Duration CLOCK_SLACK = Duration.ofMillis(50);
	private static final boolean CHANGE_TIMES = FileSystems.getDefault().supportedFileAttributeViews()
			.contains("unix"); //$NON-NLS-1$
	private static final String CHANGE_TIME = "unix:ctime"; //$NON-NLS-1$

	private final Instant before;
	private final Predicate<IPath> compared;

	private RestoredBaseline(Instant comparedAt, Predicate<IPath> compared) {
		this.before = comparedAt.minus(CLOCK_SLACK);
		this.compared = compared;
	}

	/** @return the baseline of a restore, or {@code null} when nothing can be vouched for */
	static RestoredBaseline of(IRestoreContext context) {
		Instant at = context.changedPathsComparedAt();
		return at == null || !CHANGE_TIMES ? null : new RestoredBaseline(at, context.changedPathsCoverage());
	}

	/**
	 * @param path     project-relative path of a file the index holds
	 * @param location the file on disk
	 * @return whether the index's hash of the file is known to be right without reading it
	 */
	boolean vouchesFor(String path, Path location) {
		try {
			FileTime changed = (FileTime) Files.getAttribute(location, CHANGE_TIME, LinkOption.NOFOLLOW_LINKS);
			return changed.toInstant().isBefore(before) && compared.test(IPath.fromPortableString(path));
		} catch (IOException | RuntimeException e) {
			return false; // read it
		}
	}
}
