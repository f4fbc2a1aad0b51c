package dev.branchstate.core.internal.remote;

import java.net.URI;
import java.security.PublicKey;
import java.time.Duration;
import java.util.Optional;

/**
 * Where the remote states are and how to reach them.
 *
 * @param endpoint    the S3 endpoint, e.g. {@code https://s3.eu-central-1.amazonaws.com} or
 *                    {@code http://127.0.0.1:9000}
 * @param bucket      the bucket
 * @param prefix      key prefix of Branchstate's objects in the bucket, without a leading or trailing slash; may be
 *                    empty
 * @param region      the region signatures are scoped to ({@code us-east-1} for most stores that are not AWS)
 * @param pathStyle   {@code endpoint/bucket/key} when true, else {@code bucket.endpoint/key} (virtual-host style)
 * @param credentials empty: anonymous requests (a public bucket, or a CDN in front of one), read-only
 * @param publicKey   the pinned key that every manifest must be signed with; empty: no state is fetched
 * @param timeout     the deadline of one request that is not a transfer of archive data, and of a fetch's lookup
 */
public record RemoteSettings(URI endpoint, String bucket, String prefix, String region, boolean pathStyle,
		Optional<Credentials> credentials, Optional<PublicKey> publicKey, Duration timeout) {

	public RemoteSettings {
		if (endpoint == null || endpoint.getHost() == null
				|| !("http".equals(endpoint.getScheme()) || "https".equals(endpoint.getScheme()))) { //$NON-NLS-1$ //$NON-NLS-2$
			throw new IllegalArgumentException("the endpoint must be an http or https URL: " + endpoint); //$NON-NLS-1$
		}
		if (bucket == null || !bucket.matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")) { //$NON-NLS-1$
			throw new IllegalArgumentException("not a bucket name: " + bucket); //$NON-NLS-1$
		}
		prefix = prefix == null ? "" : prefix.replaceAll("^/+|/+$", ""); //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
		region = region == null || region.isBlank() ? "us-east-1" : region.trim(); //$NON-NLS-1$
		if (timeout == null || timeout.isNegative() || timeout.isZero()) {
			timeout = Duration.ofSeconds(10);
		}
	}

	/** @return a copy whose requests carry these credentials */
	public RemoteSettings withCredentials(Credentials c) {
		return new RemoteSettings(endpoint, bucket, prefix, region, pathStyle, Optional.of(c), publicKey, timeout);
	}

	/** @return a copy that checks manifests against this key */
	public RemoteSettings withPublicKey(PublicKey key) {
		return new RemoteSettings(endpoint, bucket, prefix, region, pathStyle, credentials, Optional.of(key), timeout);
	}

	/** @return the endpoint and bucket, for messages (never the credentials) */
	public String describe() {
		return endpoint + " bucket " + bucket + (prefix.isEmpty() ? "" : " prefix " + prefix); //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
	}
}
