package dev.branchstate.archive;

import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.List;

/**
 * Selects the files of a directory tree by glob patterns ({@link java.nio.file.FileSystem#getPathMatcher} "glob"
 * syntax) matched against the path relative to the tree root, {@code /}-separated (e.g. {@code "**}{@code /*.class"},
 * {@code "bin/**"}). A directory matching an exclude pattern is skipped with its subtree; a file is taken if it
 * matches no exclude pattern and (when include patterns are given) at least one include pattern.
 */
public final class TreeFilter {

	/** Takes everything. */
	public static final TreeFilter ALL = new TreeFilter(List.of(), List.of());

	private final List<PathMatcher> includes;
	private final List<PathMatcher> excludes;

	private TreeFilter(List<String> includes, List<String> excludes) {
		this.includes = includes.stream().map(TreeFilter::glob).toList();
		this.excludes = excludes.stream().map(TreeFilter::glob).toList();
	}

	/** @param includes glob patterns, empty for all; @param excludes glob patterns */
	public static TreeFilter of(List<String> includes, List<String> excludes) {
		return new TreeFilter(includes, excludes);
	}

	private static PathMatcher glob(String pattern) {
		return FileSystems.getDefault().getPathMatcher("glob:" + pattern);
	}

	/** @return whether this filter takes every file and folder (no pattern): a walk need not ask it */
	public boolean takesEverything() {
		return includes.isEmpty() && excludes.isEmpty();
	}

	/** @param relative path relative to the root */
	public boolean excludesDirectory(Path relative) {
		for (PathMatcher m : excludes) {
			if (m.matches(relative)) {
				return true;
			}
		}
		return false;
	}

	/** @param relative path relative to the root */
	public boolean includesFile(Path relative) {
		if (excludesDirectory(relative)) {
			return false;
		}
		if (includes.isEmpty()) {
			return true;
		}
		for (PathMatcher m : includes) {
			if (m.matches(relative)) {
				return true;
			}
		}
		return false;
	}
}
