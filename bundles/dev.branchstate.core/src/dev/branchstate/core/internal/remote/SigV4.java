package dev.branchstate.core.internal.remote;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * AWS Signature Version 4 for the S3 API, header form, always over the real SHA-256 of the payload (never
 * {@code UNSIGNED-PAYLOAD}: a server that does not check a payload it was told not to check may store a truncated
 * object). Follows the AWS specification "Create a signed AWS API request" step by step: canonical request, string to
 * sign, signing key, signature.
 */
final class SigV4 {

	static final String ALGORITHM = "AWS4-HMAC-SHA256"; //$NON-NLS-1$
	static final String SERVICE = "s3"; //$NON-NLS-1$
	static final String EMPTY_SHA256 = sha256Hex(new byte[0]);

	private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'") //$NON-NLS-1$
			.withZone(ZoneOffset.UTC);

	private SigV4() {
	}

	/**
	 * @param method        HTTP method
	 * @param path          the request's path as sent, already URI-encoded ({@link #encodePath})
	 * @param query         query parameters, not encoded
	 * @param host          the Host header as sent
	 * @param headers       further headers to sign (lower-case names), e.g. {@code range}, {@code if-none-match}
	 * @param payloadSha256 hex SHA-256 of the body
	 * @return every header to add to the request: {@code x-amz-date}, {@code x-amz-content-sha256},
	 *         {@code authorization} and the given ones
	 */
	static Map<String, String> sign(String method, String path, Map<String, String> query, String host,
			Map<String, String> headers, String payloadSha256, Instant now, Credentials credentials, String region) {
		String amzDate = AMZ_DATE.format(now);
		String date = amzDate.substring(0, 8);
		SortedMap<String, String> signed = new TreeMap<>();
		headers.forEach((k, v) -> signed.put(k.toLowerCase(java.util.Locale.ROOT), v.trim()));
		signed.put("host", host); //$NON-NLS-1$
		signed.put("x-amz-content-sha256", payloadSha256); //$NON-NLS-1$
		signed.put("x-amz-date", amzDate); //$NON-NLS-1$
		String signedHeaders = String.join(";", signed.keySet()); //$NON-NLS-1$
		String canonicalRequest = method + '\n' + path + '\n' + canonicalQuery(query) + '\n'
				+ signed.entrySet().stream().map(e -> e.getKey() + ':' + e.getValue() + '\n').collect(Collectors.joining())
				+ '\n' + signedHeaders + '\n' + payloadSha256;
		String scope = date + '/' + region + '/' + SERVICE + "/aws4_request"; //$NON-NLS-1$
		String stringToSign = ALGORITHM + '\n' + amzDate + '\n' + scope + '\n'
				+ sha256Hex(canonicalRequest.getBytes(StandardCharsets.UTF_8));
		byte[] key = hmac(("AWS4" + credentials.secretKey()).getBytes(StandardCharsets.UTF_8), date); //$NON-NLS-1$
		key = hmac(key, region);
		key = hmac(key, SERVICE);
		key = hmac(key, "aws4_request"); //$NON-NLS-1$
		String signature = HexFormat.of().formatHex(hmac(key, stringToSign));
		Map<String, String> result = new TreeMap<>(signed);
		result.remove("host"); //$NON-NLS-1$ (the HTTP client sets it from the URI)
		result.put("authorization", ALGORITHM + " Credential=" + credentials.accessKey() + '/' + scope //$NON-NLS-1$ //$NON-NLS-2$
				+ ", SignedHeaders=" + signedHeaders + ", Signature=" + signature); //$NON-NLS-1$ //$NON-NLS-2$
		return result;
	}

	/** @return the query string in canonical form: sorted by name, names and values encoded */
	static String canonicalQuery(Map<String, String> query) {
		return new TreeMap<>(query).entrySet().stream().map(e -> encode(e.getKey(), true) + '=' + encode(e.getValue(), true))
				.collect(Collectors.joining("&")); //$NON-NLS-1$
	}

	/** @return the path with every segment URI-encoded, slashes kept */
	static String encodePath(String path) {
		return encode(path, false);
	}

	/** URI encoding as SigV4 defines it: every byte but the unreserved characters, '/' kept unless {@code slash}. */
	static String encode(String value, boolean slash) {
		StringBuilder b = new StringBuilder();
		for (byte c : value.getBytes(StandardCharsets.UTF_8)) {
			if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
					|| c == '.' || c == '~' || (c == '/' && !slash)) {
				b.append((char) c);
			} else {
				b.append('%').append(HexFormat.of().withUpperCase().toHexDigits(c));
			}
		}
		return b.toString();
	}

	static String sha256Hex(byte[] data) {
		return HexFormat.of().formatHex(sha256().digest(data));
	}

	static MessageDigest sha256() {
		try {
			return MessageDigest.getInstance("SHA-256"); //$NON-NLS-1$
		} catch (NoSuchAlgorithmException e) {
			throw new IllegalStateException(e);
		}
	}

	private static byte[] hmac(byte[] key, String data) {
		try {
			Mac mac = Mac.getInstance("HmacSHA256"); //$NON-NLS-1$
			mac.init(new SecretKeySpec(key, "HmacSHA256")); //$NON-NLS-1$
			return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
		} catch (GeneralSecurityException e) {
			throw new IllegalStateException(e);
		}
	}
}
