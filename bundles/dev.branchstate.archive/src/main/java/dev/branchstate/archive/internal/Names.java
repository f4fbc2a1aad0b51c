package dev.branchstate.archive.internal;

/**
 * Validation of entry names: relative, {@code /}-separated, no empty, {@code .} or {@code ..} segment, no NUL. On
 * Windows also no backslash and no drive letter; on POSIX systems those are ordinary file name characters (e.g.
 * systemd unit names contain {@code \\x2d}) and cannot lead outside the target.
 */
final class Names {

	private static final boolean POSIX = java.io.File.separatorChar == '/';

	private Names() {
	}

	/** @return why the name is not acceptable, or {@code null} if it is */
	static String problem(String name, boolean directory) {
		if (name.isEmpty()) {
			return "empty name";
		}
		if (name.indexOf('\0') >= 0) {
			return "NUL character";
		}
		if (!POSIX && name.indexOf('\\') >= 0) {
			return "backslash";
		}
		if (name.charAt(0) == '/') {
			return "absolute path";
		}
		if (!POSIX && name.length() >= 2 && name.charAt(1) == ':') {
			return "drive letter";
		}
		String body = name;
		if (name.endsWith("/")) {
			if (!directory) {
				return "file name ends with '/'";
			}
			body = name.substring(0, name.length() - 1);
		} else if (directory) {
			return "directory name does not end with '/'";
		}
		int start = 0;
		while (start <= body.length()) {
			int end = body.indexOf('/', start);
			if (end < 0) {
				end = body.length();
			}
			int len = end - start;
			if (len == 0) {
				return "empty path segment";
			}
			if (len == 1 && body.charAt(start) == '.') {
				return "'.' segment";
			}
			if (len == 2 && body.charAt(start) == '.' && body.charAt(start + 1) == '.') {
				return "'..' segment";
			}
			start = end + 1;
		}
		return null;
	}
}
