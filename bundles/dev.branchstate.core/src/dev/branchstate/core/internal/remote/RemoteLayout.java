package dev.branchstate.core.internal.remote;

import java.util.Optional;

/**
 * The object keys of remote states, under the settings' prefix:
 *
 * <pre>
 * &lt;prefix&gt;/&lt;repository&gt;/&lt;compatibility&gt;/manifests/&lt;commit&gt;
 * &lt;prefix&gt;/&lt;repository&gt;/&lt;compatibility&gt;/archives/&lt;commit&gt;-&lt;sha256&gt;.bsa
 * </pre>
 *
 * One LIST of the {@code manifests/} folder of a (repository, compatibility) tells every commit that has a complete
 * state there (a manifest is written only after its archive), so finding the nearest usable ancestor of HEAD costs
 * one request per 1,000 published commits, then the walk of the local history. An archive's key holds its SHA-256:
 * a second upload of the same state finds it there, and a retry after an interrupted upload never overwrites an
 * archive a manifest names.
 */
final class RemoteLayout {

	private final String prefix;

	RemoteLayout(String prefix) {
		this.prefix = prefix.isEmpty() ? "" : prefix + '/'; //$NON-NLS-1$
	}

	String manifests(String repository, CompatibilityKey compatibility) {
		return base(repository, compatibility) + "manifests/"; //$NON-NLS-1$
	}

	String manifest(String repository, CompatibilityKey compatibility, String commit) {
		return manifests(repository, compatibility) + commit;
	}

	String archive(String repository, CompatibilityKey compatibility, String commit, String sha256) {
		return base(repository, compatibility) + "archives/" + commit + '-' + sha256 + ".bsa"; //$NON-NLS-1$ //$NON-NLS-2$
	}

	/** @return the commit a key listed under {@link #manifests} names */
	static Optional<String> commitOf(String manifestKey) {
		String name = manifestKey.substring(manifestKey.lastIndexOf('/') + 1);
		return name.matches("[0-9a-f]{40}") ? Optional.of(name) : Optional.empty(); //$NON-NLS-1$
	}

	private String base(String repository, CompatibilityKey compatibility) {
		return prefix + repository + '/' + compatibility.hash() + '/';
	}
}
