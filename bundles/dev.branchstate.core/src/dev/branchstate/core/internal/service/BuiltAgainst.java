package dev.branchstate.core.internal.service;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
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
 * output, builder state or markers made from other dependencies. The contributor decides
 * ({@link IStateContributor#isBuiltAgainst}) from what it told at save: right after a checkout the IDE's models may
 * still describe the branch left, so telling again and comparing would refuse every state of a commit whose build
 * path or manifest differs from the branch left. Kept in the archive as {@code branchstate/built-against}: one line
 * per part whose contributor tells anything, {@code <contributor>\t<project>\t<what it told>} (backslash, tab and
 * line feed escaped); a state without the entry was saved before it existed and is taken as built against what is
 * there now.
 */
final class BuiltAgainst {

	static final String ENTRY = StateLayout.META + "built-against"; //$NON-NLS-1$
	/** Recorded when the contributor could not tell: no contributor tells it, so none takes it as what it tells. */
	private static final String UNKNOWN = "\u0000unknown"; //$NON-NLS-1$

	private final Map<String, String> told = new LinkedHashMap<>();

	/** Records what a part just saved was built against. */
	void record(StateLayout.Part part, IStateContributor contributor, IProject project) {
		Outcome<String> description = ContributorRegistry.safely(() -> contributor.compatibility(project));
		String then = description.ok() && description.value() != null ? description.value() : UNKNOWN;
		if (!then.isEmpty()) {
			told.put(key(part.contributorId(), part.project()), then);
		}
	}

	/** @return the entry's bytes */
	byte[] encode() {
		StringBuilder b = new StringBuilder();
		told.forEach((key, then) -> b.append(key).append('\t').append(escape(then)).append('\n'));
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
		Map<String, Boolean> same = new HashMap<>();
		for (Selected s : selected) {
			String key = key(s.part().contributorId(), s.part().project());
			String then = saved.getOrDefault(key, ""); //$NON-NLS-1$
			boolean builtAgainst = same.computeIfAbsent(key, k -> {
				Outcome<Boolean> answer = ContributorRegistry.safely(() -> s.contributor().isBuiltAgainst(s.project(), then));
				return answer.ok() && Boolean.TRUE.equals(answer.value());
			});
			if (!builtAgainst && !changed.containsKey(s.project())) {
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
			saved.put(key(f[0], f[1]), unescape(f[2]));
		}
		return saved;
	}

	private static String key(String contributorId, String project) {
		return contributorId + '\t' + project;
	}

	private static String escape(String text) {
		return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n"); //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$ //$NON-NLS-4$ //$NON-NLS-5$ //$NON-NLS-6$
	}

	private static String unescape(String text) {
		StringBuilder b = new StringBuilder(text.length());
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '\\' && i + 1 < text.length()) {
				char next = text.charAt(++i);
				b.append(next == 't' ? '\t' : next == 'n' ? '\n' : next);
			} else {
				b.append(c);
			}
		}
		return b.toString();
	}
}
