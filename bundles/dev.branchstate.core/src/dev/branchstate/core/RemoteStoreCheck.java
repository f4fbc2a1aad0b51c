package dev.branchstate.core;

import java.time.Instant;
import java.util.Optional;

/**
 * What a test of the connection to the remote state store found: the store answered a listing of Branchstate's
 * objects, how many published states (manifests) it holds, and whether the newest of them is signed by the pinned
 * public key. A store that cannot be listed is not a result: {@link IStateService#checkRemoteStore} throws then.
 *
 * @param store          the endpoint, bucket and prefix asked, for messages
 * @param states         the manifests listed (each a published state) among the first 10,000 objects under the
 *                       prefix
 * @param newestManifest the key of the newest manifest; empty when the store holds none
 * @param newestCreated  when the store last wrote the newest manifest; empty when there is none
 * @param creator        who published the newest state (the manifest's creator field); empty when there is none or
 *                       its signature was not valid
 * @param signature      the check of the newest manifest's signature
 * @param keyFingerprint the first 16 hex digits of the SHA-256 of the pinned public key; empty when none is pinned
 * @param problem        why the signature was not valid (names the manifest); empty otherwise
 */
public record RemoteStoreCheck(String store, int states, Optional<String> newestManifest,
		Optional<Instant> newestCreated, Optional<String> creator, Signature signature,
		Optional<String> keyFingerprint, Optional<String> problem) {

	/** The outcome of the signature check of the newest manifest. */
	public enum Signature {
		/** Signed by the pinned public key and readable as a manifest. */
		VALID,
		/** Not signed, signed by another key, changed after signing, or not a manifest. */
		INVALID,
		/** No public key is pinned: nothing could be checked (and nothing would be fetched). */
		NO_KEY_PINNED,
		/** The store holds no manifest to check. */
		NO_MANIFEST
	}
}
