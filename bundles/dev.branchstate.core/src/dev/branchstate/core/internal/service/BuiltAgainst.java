package dev.branchstate.core.internal.service;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.eclipse.core.resources.IProject;
import org.eclipse.osgi.util.NLS;

import dev.branchstate.core.IStateContributor;
import dev.branchstate.core.internal.Messages;
import dev.branchstate.core.internal.contributors.ContributorRegistry;
import dev.branchstate.core.internal.contributors.ContributorRegistry.Outcome;
import dev.branchstate.core.internal.service.RestoreOperation.Selected;

/**
 * What the data of each part was built against, beyond the sources: the contributor's
 * {@linkplain IStateContributor#compatibility compatibility} of the project when it was saved (for a Java project:
 * the JDT version, the compiler options, every library outside the workspace with its content's hash — the JDK, the
 * jars "Plug-in Dependencies" resolved to from the target platform). A part is restored only where the project is
 * built against the same now: after a change of the target platform, the JDK or a library, the projects built against
 * the old ones are left to their builders (with every project that reads them, by the hand-off's rule), never handed
 * output, builder state or markers made from other dependencies. Kept in the archive as
 * {@code branchstate/built-against}: one line per part whose contributor tells anything, {@code <contributor>\t
 * <project>\t<SHA-256 of the compatibility>}; a state without the entry was saved before it existed and is taken as
 * built against what is there now.
 */
final class BuiltAgainst {

	static final String ENTRY = StateLayout.META + "built-against"; //$NON-NLS-1$
	/** Recorded when the contributor could not tell: never equal to what it tells at restore. */
	private static final String UNKNOWN = "unknown"; //$NON-NLS-1$

	private final Map<String, String> hashes = new LinkedHashMap<>();

	/** Records what a part just saved was built against. */
	void record(StateLayout.Part part, IStateContributor contributor, IProject project) {
		String hash = hashOf(contributor, project);
		if (!hash.isEmpty()) {
			hashes.put(key(part.contributorId(), part.project()), hash);
		}
	}

	/** @return the entry's bytes */
	byte[] encode() {
		StringBuilder b = new StringBuilder();
		hashes.forEach((key, hash) -> b.append(key).append('\t').append(hash).append('\n'));
		return b.toString().getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * @param entry    the archive's entry, {@code null} when it has none
	 * @param selected the parts a restore would restore
	 * @return the projects whose parts were built against something other than what they are built against now,
	 *         with the reason for each (the first contributor that differs)
	 */
	static Map<IProject, String> changedSince(byte[] entry, List<Selected> selected) throws IOException {
		Map<IProject, String> changed = new LinkedHashMap<>();
		if (entry == null) {
			return changed;
		}
		Map<String, String> saved = decode(entry);
		Map<String, String> now = new HashMap<>();
		for (Selected s : selected) {
			String key = key(s.part().contributorId(), s.part().project());
			String then = saved.getOrDefault(key, ""); //$NON-NLS-1$
			String current = now.computeIfAbsent(key, k -> hashOf(s.contributor(), s.project()));
			if (!then.equals(current) && !changed.containsKey(s.project())) {
				changed.put(s.project(), NLS.bind(Messages.Service_builtAgainstOther, s.project().getName(),
						s.part().contributorId()));
			}
		}
		return changed;
	}

	private static Map<String, String> decode(byte[] entry) throws IOException {
		Map<String, String> saved = new HashMap<>();
		for (String line : new String(entry, StandardCharsets.UTF_8).split("\n")) { //$NON-NLS-1$
			if (line.isEmpty()) {
				continue;
			}
			String[] f = line.split("\t", -1); //$NON-NLS-1$
			if (f.length != 3 || f[0].isEmpty() || f[1].isEmpty() || f[2].isEmpty()) {
				throw new IOException("invalid line in " + ENTRY + ": " + line); //$NON-NLS-1$ //$NON-NLS-2$
			}
			saved.put(key(f[0], f[1]), f[2]);
		}
		return saved;
	}

	private static String key(String contributorId, String project) {
		return contributorId + '\t' + project;
	}

	/** @return the hash of what the contributor tells of the project, "" when nothing, {@value #UNKNOWN} on failure */
	private static String hashOf(IStateContributor contributor, IProject project) {
		Outcome<String> told = ContributorRegistry.safely(() -> contributor.compatibility(project));
		if (!told.ok() || told.value() == null) {
			return UNKNOWN;
		}
		if (told.value().isEmpty()) {
			return ""; //$NON-NLS-1$
		}
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(told.value().getBytes(StandardCharsets.UTF_8)); //$NON-NLS-1$
			return HexFormat.of().formatHex(digest);
		} catch (NoSuchAlgorithmException e) {
			throw new IllegalStateException(e);
		}
	}
}
