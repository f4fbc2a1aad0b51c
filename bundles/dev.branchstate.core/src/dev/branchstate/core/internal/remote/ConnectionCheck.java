package dev.branchstate.core.internal.remote;

import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

import dev.branchstate.core.RemoteStoreCheck;
import dev.branchstate.core.RemoteStoreCheck.Signature;

/**
 * Tests a remote store the way a switch uses it: one listing of the objects under Branchstate's prefix (at most
 * {@value RemoteStates#MAX_LIST_PAGES} pages), then the newest manifest read and its signature checked against the
 * pinned public key. A listing the store refuses (wrong credentials, no such bucket, unreachable endpoint) is an
 * {@link IOException}; a manifest that does not verify is a result, not an exception.
 */
public final class ConnectionCheck {

	private ConnectionCheck() {
	}

	public static RemoteStoreCheck run(S3Client client) throws IOException {
		RemoteSettings settings = client.settings();
		String prefix = settings.prefix().isEmpty() ? "" : settings.prefix() + '/'; //$NON-NLS-1$
		List<S3Client.Listed> manifests = client.listObjects(prefix, RemoteStates.MAX_LIST_PAGES).stream()
				.filter(o -> o.key().contains("/manifests/") && RemoteLayout.commitOf(o.key()).isPresent()) //$NON-NLS-1$
				.toList();
		Optional<String> fingerprint = settings.publicKey().map(ConnectionCheck::fingerprint);
		Optional<S3Client.Listed> newest = manifests.stream()
				.max(Comparator.comparing(S3Client.Listed::lastModified).thenComparing(S3Client.Listed::key));
		if (newest.isEmpty()) {
			return new RemoteStoreCheck(settings.describe(), 0, Optional.empty(), Optional.empty(), Optional.empty(),
					Signature.NO_MANIFEST, fingerprint, Optional.empty());
		}
		String key = newest.get().key();
		Optional<java.time.Instant> created = Optional.of(newest.get().lastModified());
		if (settings.publicKey().isEmpty()) {
			return new RemoteStoreCheck(settings.describe(), manifests.size(), Optional.of(key), created,
					Optional.empty(), Signature.NO_KEY_PINNED, fingerprint, Optional.empty());
		}
		byte[] text = client.get(key, StateManifest.MAX_BYTES)
				.orElseThrow(() -> new IOException(key + ": listed, but gone when read")); //$NON-NLS-1$
		try {
			StateManifest manifest = ManifestSigner.verify(key, text, settings.publicKey().get());
			return new RemoteStoreCheck(settings.describe(), manifests.size(), Optional.of(key), created,
					Optional.of(manifest.creator()), Signature.VALID, fingerprint, Optional.empty());
		} catch (IllegalArgumentException e) {
			return new RemoteStoreCheck(settings.describe(), manifests.size(), Optional.of(key), created,
					Optional.empty(), Signature.INVALID, fingerprint, Optional.of(e.getMessage()));
		}
	}

	/** @return the first 16 hex digits of the SHA-256 of the key's encoded form */
	public static String fingerprint(PublicKey key) {
		try {
			byte[] hash = MessageDigest.getInstance("SHA-256").digest(key.getEncoded()); //$NON-NLS-1$
			return HexFormat.of().formatHex(hash, 0, 8);
		} catch (NoSuchAlgorithmException e) {
			throw new IllegalStateException(e);
		}
	}
}
