package dev.branchstate.core.internal.remote;

/**
 * An access key and its secret, for signed requests. {@link #toString()} never shows the secret: credentials must not
 * reach preferences, logs or the catalog.
 */
public record Credentials(String accessKey, String secretKey) {

	public Credentials {
		if (accessKey == null || accessKey.isBlank() || secretKey == null || secretKey.isEmpty()) {
			throw new IllegalArgumentException("an access key and a secret key are both needed"); //$NON-NLS-1$
		}
	}

	@Override
	public String toString() {
		return "Credentials[" + accessKey + ", secret hidden]"; //$NON-NLS-1$ //$NON-NLS-2$
	}
}
