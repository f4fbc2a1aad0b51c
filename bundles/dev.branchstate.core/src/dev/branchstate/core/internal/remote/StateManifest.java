package dev.branchstate.core.internal.remote;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What a remote state is, told by the one who published it and signed by it: the object beside the archive, written
 * after the archive, read and checked before it. Its text form is lines of {@code name=value} in a fixed order, the
 * last one {@code signature=} (Ed25519 over every byte before that line, see {@link ManifestSigner}).
 *
 * @param repository       the repository's identity ({@link RepositoryIdentity})
 * @param commit           the commit the state was saved at (40 hex digits)
 * @param compatibility    the compatibility key ({@link CompatibilityKey#hash()})
 * @param archiveKey       the archive's object key
 * @param size             the archive's size in bytes
 * @param sha256           the archive's SHA-256, hex
 * @param uncompressedSize bytes of data the archive holds (the bound of its extraction)
 * @param contributors     contributor id → data version
 * @param creator          who published it (free text, one line)
 * @param created          when
 */
public record StateManifest(String repository, String commit, String compatibility, String archiveKey, long size,
		String sha256, long uncompressedSize, Map<String, Integer> contributors, String creator, Instant created) {

	/** The format's name and version: the first line. */
	static final String FORMAT = "branchstate-manifest=1"; //$NON-NLS-1$
	static final String SIGNATURE = "signature="; //$NON-NLS-1$
	/** A manifest is small; a larger object is refused unread. */
	public static final int MAX_BYTES = 16 * 1024;

	private static final List<String> FIELDS = List.of("repository", "commit", "compatibility", "archive", "size", //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$ //$NON-NLS-4$ //$NON-NLS-5$
			"sha256", "uncompressedSize", "contributors", "creator", "created"); //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$ //$NON-NLS-4$ //$NON-NLS-5$

	public StateManifest {
		if (!commit.matches("[0-9a-f]{40}")) { //$NON-NLS-1$
			throw new IllegalArgumentException("not a commit id: " + commit); //$NON-NLS-1$
		}
		if (!sha256.matches("[0-9a-f]{64}")) { //$NON-NLS-1$
			throw new IllegalArgumentException("not a SHA-256: " + sha256); //$NON-NLS-1$
		}
		if (size <= 0 || uncompressedSize < 0) {
			throw new IllegalArgumentException("sizes must be positive"); //$NON-NLS-1$
		}
		contributors = Map.copyOf(contributors);
		creator = creator.replaceAll("\\p{Cntrl}", " "); //$NON-NLS-1$ //$NON-NLS-2$
		for (String value : List.of(repository, compatibility, archiveKey)) {
			if (value.isEmpty() || value.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
				throw new IllegalArgumentException("empty value or a control character in a manifest field"); //$NON-NLS-1$
			}
		}
	}

	/** @return the text that is signed: every line but the signature's, each ending with a newline */
	byte[] unsignedText() {
		StringBuilder b = new StringBuilder(FORMAT).append('\n');
		String contributorsValue = new TreeMap<>(contributors).entrySet().stream()
				.map(e -> e.getKey() + ':' + e.getValue()).collect(Collectors.joining(",")); //$NON-NLS-1$
		List<String> values = List.of(repository, commit, compatibility, archiveKey, Long.toString(size), sha256,
				Long.toString(uncompressedSize), contributorsValue, creator, created.toString());
		for (int i = 0; i < FIELDS.size(); i++) {
			b.append(FIELDS.get(i)).append('=').append(values.get(i)).append('\n');
		}
		return b.toString().getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Reads the fields of a manifest whose signature was checked already ({@link ManifestSigner#verify}).
	 *
	 * @param name the object's key, for messages
	 * @throws IllegalArgumentException naming the object and what is wrong
	 */
	static StateManifest parse(String name, byte[] signedText) {
		String text = new String(signedText, StandardCharsets.UTF_8);
		List<String> lines = text.lines().toList();
		if (lines.isEmpty() || !lines.get(0).equals(FORMAT)) {
			throw new IllegalArgumentException(name + ": not a Branchstate manifest of format 1"); //$NON-NLS-1$
		}
		Map<String, String> fields = new LinkedHashMap<>();
		for (String line : lines.subList(1, lines.size())) {
			int eq = line.indexOf('=');
			String field = eq < 0 ? line : line.substring(0, eq);
			if (eq < 0 || !FIELDS.contains(field) || fields.put(field, line.substring(eq + 1)) != null) {
				throw new IllegalArgumentException(name + ": unexpected line '" + line + '\''); //$NON-NLS-1$
			}
		}
		if (!fields.keySet().containsAll(FIELDS)) {
			throw new IllegalArgumentException(name + ": fields missing, expected " + FIELDS); //$NON-NLS-1$
		}
		try {
			Map<String, Integer> contributors = new LinkedHashMap<>();
			String value = fields.get("contributors"); //$NON-NLS-1$
			if (!value.isEmpty()) {
				for (String c : value.split(",")) { //$NON-NLS-1$
					int colon = c.lastIndexOf(':');
					contributors.put(c.substring(0, colon), Integer.valueOf(c.substring(colon + 1)));
				}
			}
			return new StateManifest(fields.get("repository"), fields.get("commit"), fields.get("compatibility"), //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
					fields.get("archive"), Long.parseLong(fields.get("size")), fields.get("sha256"), //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
					Long.parseLong(fields.get("uncompressedSize")), contributors, fields.get("creator"), //$NON-NLS-1$ //$NON-NLS-2$
					Instant.parse(fields.get("created"))); //$NON-NLS-1$
		} catch (RuntimeException e) {
			if (e instanceof IllegalArgumentException && e.getMessage() != null && e.getMessage().startsWith(name)) {
				throw e;
			}
			throw new IllegalArgumentException(name + ": " + (e instanceof DateTimeParseException ? "bad date" //$NON-NLS-1$ //$NON-NLS-2$
					: String.valueOf(e.getMessage())), e);
		}
	}
}
