package dev.branchstate.core.internal.remote;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

/**
 * What must be equal for a state built elsewhere to be usable here: for each project of the repository (by name),
 * each contributor that applies to it, its data version and what it says makes its data unusable elsewhere
 * ({@link dev.branchstate.core.IStateContributor#compatibility}: JDT's version and the libraries outside the
 * workspace that the project compiles against, for Java projects). States are published and looked up under its
 * hash, so a state built against another JDK is never even listed.
 *
 * @param lines one line per (project, contributor), sorted
 */
public record CompatibilityKey(List<String> lines) {

	public CompatibilityKey {
		lines = lines.stream().sorted().toList();
	}

	/** @return the first 16 hex digits of the SHA-256 of the lines: the key's folder in the store */
	public String hash() {
		byte[] digest = SigV4.sha256().digest(String.join("\n", lines).getBytes(StandardCharsets.UTF_8)); //$NON-NLS-1$
		return HexFormat.of().formatHex(digest, 0, 8);
	}
}
