package dev.branchstate.ui.internal.preferences;

import java.io.File;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.eclipse.osgi.util.NLS;

import dev.branchstate.ui.internal.Messages;

/**
 * Checks of preference values, each answering {@code null} when the value is fine or the message to show on the page.
 * Pure functions, so that tests can call them without a page.
 */
public final class Validation {

	/** The smallest disk budget accepted, in MiB: less does not hold the state of one branch of a real project. */
	public static final int MIN_DISK_BUDGET_MB = 100;
	public static final int MIN_COMPRESSION_LEVEL = 1;
	public static final int MAX_COMPRESSION_LEVEL = 19;
	public static final int MAX_WORKER_THREADS = 256;

	private Validation() {
	}

	/** @return the patterns of a comma or line separated list, trimmed, without empty ones */
	public static List<String> patterns(String text) {
		return Arrays.stream(text == null ? new String[0] : text.split("[,\\n\\r]+")) //$NON-NLS-1$
				.map(String::trim).filter(s -> !s.isEmpty()).toList();
	}

	public static String branchPatterns(String text) {
		List<String> patterns = patterns(text);
		if (patterns.isEmpty()) {
			return Messages.Pref_branchPatternsEmpty;
		}
		return globs(patterns);
	}

	public static String derivedFolders(String text) {
		List<String> patterns = patterns(text);
		for (String p : patterns) {
			if (p.startsWith("/") || p.startsWith("\\") || p.matches("^[A-Za-z]:.*") //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
					|| Arrays.asList(p.split("[/\\\\]")).contains("..")) { //$NON-NLS-1$ //$NON-NLS-2$
				return NLS.bind(Messages.Pref_derivedFolderNotRelative, p);
			}
		}
		return globs(patterns);
	}

	private static String globs(List<String> patterns) {
		for (String p : patterns) {
			try {
				FileSystems.getDefault().getPathMatcher("glob:" + p); //$NON-NLS-1$
			} catch (IllegalArgumentException e) { // PatternSyntaxException is one
				return NLS.bind(Messages.Pref_patternInvalid, p, e.getMessage());
			}
		}
		return null;
	}

	/**
	 * Empty means the default location. Otherwise an absolute path to a writable folder, or to a folder that can be
	 * created (its nearest existing ancestor is a writable folder).
	 */
	public static String storeLocation(String text) {
		if (text == null || text.isBlank()) {
			return null;
		}
		Path path;
		try {
			path = Path.of(text.trim());
		} catch (InvalidPathException e) {
			return NLS.bind(Messages.Pref_storeLocationInvalid, text.trim());
		}
		if (!path.isAbsolute()) {
			return NLS.bind(Messages.Pref_storeLocationNotAbsolute, text.trim());
		}
		if (Files.exists(path)) {
			if (!Files.isDirectory(path)) {
				return NLS.bind(Messages.Pref_storeLocationNotFolder, path);
			}
			return writable(path) ? null : NLS.bind(Messages.Pref_storeLocationNotWritable, path);
		}
		Path ancestor = path.getParent();
		while (ancestor != null && !Files.exists(ancestor)) {
			ancestor = ancestor.getParent();
		}
		if (ancestor == null || !Files.isDirectory(ancestor) || !writable(ancestor)) {
			return NLS.bind(Messages.Pref_storeLocationNotCreatable, path, ancestor == null ? path.getRoot() : ancestor);
		}
		return null;
	}

	private static boolean writable(Path folder) {
		// Files.isWritable answers from the permission bits; a read-only mount says yes there, so look closer
		File dir = folder.toFile();
		return Files.isWritable(folder) && dir.canWrite();
	}

	/** @return null when the text is empty (no remote store) or an http(s) URL with a host, else why not */
	public static String remoteEndpoint(String text) {
		if (text.isBlank()) {
			return null;
		}
		try {
			java.net.URI uri = java.net.URI.create(text.trim());
			if (uri.getHost() != null && ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) { //$NON-NLS-1$ //$NON-NLS-2$
				return null;
			}
		} catch (IllegalArgumentException e) {
			// told below
		}
		return Messages.PrefRemote_endpointInvalid;
	}

	/** @return null when the text is empty or a bucket name S3 accepts, else why not */
	public static String remoteBucket(String text) {
		return text.isBlank() || text.trim().matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]") ? null //$NON-NLS-1$
				: Messages.PrefRemote_bucketInvalid;
	}

	/** @return null when the text is empty or an Ed25519 public key (PEM or its Base64 line), else why not */
	public static String remotePublicKey(String text) {
		if (text.isBlank()) {
			return null;
		}
		try {
			byte[] der = java.util.Base64.getMimeDecoder().decode(text.replaceAll("-----[A-Z ]+-----", "").trim()); //$NON-NLS-1$ //$NON-NLS-2$
			java.security.KeyFactory.getInstance("Ed25519").generatePublic(new java.security.spec.X509EncodedKeySpec(der)); //$NON-NLS-1$
			return null;
		} catch (IllegalArgumentException | java.security.GeneralSecurityException e) {
			return Messages.PrefRemote_publicKeyInvalid;
		}
	}
}
