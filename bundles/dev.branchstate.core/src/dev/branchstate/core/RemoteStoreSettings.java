package dev.branchstate.core;

/**
 * A remote state store as the user is entering it (for instance on the Remote Store preference page before the
 * values are saved): what {@link IStateService#checkRemoteStore} tests.
 *
 * @param endpoint       the S3 endpoint URL
 * @param bucket         the bucket
 * @param prefix         the key prefix of Branchstate's objects (may be empty)
 * @param region         the signing region (blank: {@code us-east-1})
 * @param pathStyle      path-style addressing
 * @param publicKey      the publisher's pinned public key (PEM or its Base64 line); blank: none
 * @param accessKey      the access key; {@code null} or, with a {@code null} or empty secret key, the credentials kept
 *                       in secure storage or the environment; blank: anonymous requests
 * @param secretKey      the secret key typed, or {@code null}/empty to use the kept one
 * @param timeoutSeconds the deadline of one request
 */
public record RemoteStoreSettings(String endpoint, String bucket, String prefix, String region, boolean pathStyle,
		String publicKey, String accessKey, String secretKey, int timeoutSeconds) {
}
