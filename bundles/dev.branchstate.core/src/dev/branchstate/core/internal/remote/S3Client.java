package dev.branchstate.core.internal.remote;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * The part of the S3 API that remote states need, on the JDK's {@link HttpClient}: objects are put (whole or in
 * parallel parts, optionally only if absent), got (whole with a size bound, or by range straight into a file) and
 * listed. Requests are signed with {@link SigV4} when the settings have credentials, anonymous otherwise. Idempotent
 * requests are tried up to {@value #ATTEMPTS} times on network errors and on 5xx and 429 answers.
 */
public final class S3Client {

	static final int ATTEMPTS = 3;
	private static final Pattern CONTENT_RANGE = Pattern.compile("bytes (\\d+)-(\\d+)/(\\d+)"); //$NON-NLS-1$

	private final RemoteSettings settings;
	private final HttpClient http;

	public S3Client(RemoteSettings settings) {
		this.settings = settings;
		this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(settings.timeout())
				.followRedirects(HttpClient.Redirect.NEVER).build();
	}

	public RemoteSettings settings() {
		return settings;
	}

	// ------------------------------------------------------------------------------------------------ objects

	/** Creates the bucket (tests and first set-up); one that exists and is ours already is fine. */
	public void createBucket() throws IOException {
		HttpResponse<byte[]> r = send("PUT", "", Map.of(), Map.of(), new byte[0], settings.timeout(), true); //$NON-NLS-1$ //$NON-NLS-2$
		if (r.statusCode() != 200 && r.statusCode() != 409) {
			throw error("bucket " + settings.bucket(), r); //$NON-NLS-1$
		}
	}

	/**
	 * Puts a small object.
	 *
	 * @param ifAbsent only if no object has the key ({@code If-None-Match: *})
	 * @return false when {@code ifAbsent} and the object exists
	 */
	public boolean put(String key, byte[] body, boolean ifAbsent) throws IOException {
		Map<String, String> headers = ifAbsent ? Map.of("if-none-match", "*") : Map.of(); //$NON-NLS-1$ //$NON-NLS-2$
		HttpResponse<byte[]> r = send("PUT", key, Map.of(), headers, body, settings.timeout(), true); //$NON-NLS-1$
		if (r.statusCode() == 200) {
			return true;
		}
		S3Exception e = error(key, r);
		if (ifAbsent && e.exists()) {
			return false;
		}
		throw e;
	}

	/**
	 * Puts a file: in one request up to {@code partSize} bytes, else as a multipart upload of {@code parallelism}
	 * parts at a time, each signed over its own SHA-256. An upload that fails or is cancelled is aborted (the store
	 * drops its parts); no object appears under the key unless every part arrived.
	 *
	 * @param channel the bytes to put, read by position (not closed here)
	 * @return false when {@code ifAbsent} and the object exists (nothing is written then)
	 */
	public boolean putFile(String key, FileChannel channel, boolean ifAbsent, long partSize, int parallelism,
			BooleanSupplier canceled) throws IOException {
		long size = channel.size();
		if (size <= partSize) {
			return put(key, read(channel, 0, (int) size), ifAbsent);
		}
		return putMultipart(key, channel, size, ifAbsent, partSize, parallelism, canceled);
	}

	private boolean putMultipart(String key, FileChannel channel, long size, boolean ifAbsent, long partSize,
			int parallelism, BooleanSupplier canceled) throws IOException {
		if (ifAbsent && head(key).isPresent()) {
			return false;
		}
		HttpResponse<byte[]> created = send("POST", key, Map.of("uploads", ""), Map.of(), new byte[0], //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
				settings.timeout(), true);
		if (created.statusCode() != 200) {
			throw error(key, created);
		}
		String uploadId = text(parse(key, created.body()).getDocumentElement(), "UploadId"); //$NON-NLS-1$
		int parts = (int) ((size + partSize - 1) / partSize);
		ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(parallelism, parts)),
				Thread.ofPlatform().name("branchstate-upload-", 0).daemon().factory()); //$NON-NLS-1$
		boolean completed = false;
		try {
			List<Future<String>> etags = new ArrayList<>();
			for (int i = 0; i < parts; i++) {
				long position = i * partSize;
				int length = (int) Math.min(partSize, size - position);
				int number = i + 1;
				etags.add(pool.submit(() -> {
					if (canceled.getAsBoolean()) {
						throw new CancellationException();
					}
					HttpResponse<byte[]> r = send("PUT", key, //$NON-NLS-1$
							Map.of("partNumber", Integer.toString(number), "uploadId", uploadId), Map.of(), //$NON-NLS-1$ //$NON-NLS-2$
							read(channel, position, length), transferTimeout(length), true);
					if (r.statusCode() != 200) {
						throw error(key + " part " + number, r); //$NON-NLS-1$
					}
					return r.headers().firstValue("etag").orElseThrow( //$NON-NLS-1$
							() -> new S3Exception(key + " part " + number, r.statusCode(), "", "no ETag in the answer")); //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
				}));
			}
			StringBuilder body = new StringBuilder("<CompleteMultipartUpload>"); //$NON-NLS-1$
			for (int i = 0; i < parts; i++) {
				body.append("<Part><PartNumber>").append(i + 1).append("</PartNumber><ETag>") //$NON-NLS-1$ //$NON-NLS-2$
						.append(escape(await(etags.get(i)))).append("</ETag></Part>"); //$NON-NLS-1$
			}
			body.append("</CompleteMultipartUpload>"); //$NON-NLS-1$
			Map<String, String> headers = ifAbsent ? Map.of("if-none-match", "*") : Map.of(); //$NON-NLS-1$ //$NON-NLS-2$
			HttpResponse<byte[]> r = send("POST", key, Map.of("uploadId", uploadId), headers, //$NON-NLS-1$ //$NON-NLS-2$
					body.toString().getBytes(StandardCharsets.UTF_8), transferTimeout(size), false);
			// a complete can fail with 200 and an error document (S3 says so)
			if (r.statusCode() == 200 && !new String(r.body(), StandardCharsets.UTF_8).contains("<Error>")) { //$NON-NLS-1$
				completed = true;
				return true;
			}
			S3Exception e = error(key, r);
			if (ifAbsent && e.exists()) {
				return false;
			}
			throw e;
		} finally {
			pool.shutdownNow();
			if (!completed) {
				abort(key, uploadId);
			}
		}
	}

	private void abort(String key, String uploadId) {
		try {
			send("DELETE", key, Map.of("uploadId", uploadId), Map.of(), new byte[0], settings.timeout(), true); //$NON-NLS-1$ //$NON-NLS-2$
		} catch (IOException e) {
			// the store drops unfinished uploads by its own lifecycle rules; nothing a reader could pick remains
		}
	}

	/** @return the object's size, or empty when there is no such object */
	public Optional<Long> head(String key) throws IOException {
		HttpResponse<byte[]> r = send("HEAD", key, Map.of(), Map.of(), new byte[0], settings.timeout(), true); //$NON-NLS-1$
		if (r.statusCode() == 404) {
			return Optional.empty();
		}
		if (r.statusCode() != 200) {
			throw error(key, r);
		}
		return Optional.of(Long.valueOf(r.headers().firstValueAsLong("content-length").orElse(-1))); //$NON-NLS-1$
	}

	/**
	 * Gets a small object whole.
	 *
	 * @return its bytes, or empty when there is no such object
	 * @throws S3Exception when it is larger than {@code maxBytes} (the rest is not read)
	 */
	public Optional<byte[]> get(String key, int maxBytes) throws IOException {
		HttpResponse<InputStream> r = sendStreaming("GET", key, Map.of(), settings.timeout()); //$NON-NLS-1$
		try (InputStream in = r.body()) {
			if (r.statusCode() == 404) {
				return Optional.empty();
			}
			if (r.statusCode() != 200) {
				throw error(key, r.statusCode(), in.readNBytes(64 * 1024));
			}
			byte[] data = in.readNBytes(maxBytes + 1);
			if (data.length > maxBytes) {
				throw new S3Exception(key, r.statusCode(), "", "larger than " + maxBytes + " bytes, refused"); //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
			}
			return Optional.of(data);
		}
	}

	/**
	 * Gets {@code length} bytes of an object from {@code position} and writes them at the same position of
	 * {@code target}, never more: the object must be exactly {@code expectedSize} bytes long (the store tells its
	 * size with every range) and the answer exactly the range asked.
	 */
	public void getRange(String key, long position, int length, long expectedSize, FileChannel target)
			throws IOException {
		String range = "bytes=" + position + '-' + (position + length - 1); //$NON-NLS-1$
		IOException last = null;
		for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
			try {
				HttpResponse<InputStream> r = sendStreaming("GET", key, Map.of("range", range), //$NON-NLS-1$ //$NON-NLS-2$
						transferTimeout(length));
				try (InputStream in = r.body()) {
					if (r.statusCode() != 206) {
						S3Exception e = r.statusCode() == 200
								? new S3Exception(key, 200, "", "the store does not answer range requests") //$NON-NLS-1$ //$NON-NLS-2$
								: error(key, r.statusCode(), in.readNBytes(64 * 1024));
						if (!e.retryable()) {
							throw e;
						}
						last = e;
						continue;
					}
					Matcher m = CONTENT_RANGE.matcher(r.headers().firstValue("content-range").orElse("")); //$NON-NLS-1$ //$NON-NLS-2$
					if (!m.matches() || Long.parseLong(m.group(1)) != position
							|| Long.parseLong(m.group(2)) != position + length - 1) {
						throw new S3Exception(key, 206, "", "the answer is not the range asked (" + range + ')'); //$NON-NLS-1$ //$NON-NLS-2$
					}
					long total = Long.parseLong(m.group(3));
					if (total != expectedSize) {
						throw new S3Exception(key, 206, "", "the object is " + total + " bytes, not the " //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
								+ expectedSize + " its manifest declares"); //$NON-NLS-1$
					}
					copy(in, target, position, length, key);
					return;
				}
			} catch (S3Exception e) {
				throw e;
			} catch (InterruptedIOException e) {
				throw e;
			} catch (IOException e) {
				last = e;
			}
		}
		throw last;
	}

	private static void copy(InputStream in, FileChannel target, long position, int length, String key)
			throws IOException {
		byte[] buffer = new byte[64 * 1024];
		long at = position;
		long end = position + length;
		int n;
		while ((n = in.read(buffer, 0, (int) Math.min(buffer.length, end - at + 1))) > 0) {
			if (at + n > end) {
				throw new S3Exception(key, 206, "", "the answer is longer than the range asked"); //$NON-NLS-1$ //$NON-NLS-2$
			}
			ByteBuffer b = ByteBuffer.wrap(buffer, 0, n);
			while (b.hasRemaining()) {
				at += target.write(b, at);
			}
		}
		if (at != end) {
			throw new IOException(key + ": the answer ended after " + (at - position) + " of " + length + " bytes"); //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
		}
	}

	/**
	 * Lists keys under a prefix (ListObjectsV2), at most {@code maxPages} pages of up to 1,000 keys.
	 *
	 * @return the keys and their sizes, in the store's (lexicographic) order
	 */
	public Map<String, Long> list(String prefix, int maxPages) throws IOException {
		Map<String, Long> keys = new LinkedHashMap<>();
		for (Listed o : listObjects(prefix, maxPages)) {
			keys.put(o.key(), Long.valueOf(o.size()));
		}
		return keys;
	}

	/** One object of a listing: its key, size and the time the store last wrote it. */
	public record Listed(String key, long size, Instant lastModified) {
	}

	/**
	 * Lists the objects under a prefix (ListObjectsV2), at most {@code maxPages} pages of up to 1,000 keys.
	 *
	 * @return the objects in the store's (lexicographic) order
	 */
	public List<Listed> listObjects(String prefix, int maxPages) throws IOException {
		List<Listed> objects = new ArrayList<>();
		String token = null;
		for (int page = 0; page < maxPages; page++) {
			Map<String, String> query = new LinkedHashMap<>();
			query.put("list-type", "2"); //$NON-NLS-1$ //$NON-NLS-2$
			query.put("prefix", prefix); //$NON-NLS-1$
			if (token != null) {
				query.put("continuation-token", token); //$NON-NLS-1$
			}
			HttpResponse<byte[]> r = send("GET", "", query, Map.of(), new byte[0], settings.timeout(), true); //$NON-NLS-1$ //$NON-NLS-2$
			if (r.statusCode() != 200) {
				throw error("list " + prefix, r); //$NON-NLS-1$
			}
			Element root = parse(prefix, r.body()).getDocumentElement();
			NodeList contents = root.getElementsByTagName("Contents"); //$NON-NLS-1$
			for (int i = 0; i < contents.getLength(); i++) {
				Element c = (Element) contents.item(i);
				objects.add(new Listed(text(c, "Key"), Long.parseLong(text(c, "Size")), modified(c))); //$NON-NLS-1$ //$NON-NLS-2$
			}
			if (!"true".equals(text(root, "IsTruncated"))) { //$NON-NLS-1$ //$NON-NLS-2$
				break;
			}
			token = text(root, "NextContinuationToken"); //$NON-NLS-1$
		}
		return objects;
	}

	/** @return the object's LastModified, or the epoch when the store gives none that parses */
	private static Instant modified(Element contents) {
		try {
			return Instant.parse(text(contents, "LastModified")); //$NON-NLS-1$
		} catch (RuntimeException e) {
			return Instant.EPOCH;
		}
	}

	public void delete(String key) throws IOException {
		HttpResponse<byte[]> r = send("DELETE", key, Map.of(), Map.of(), new byte[0], settings.timeout(), true); //$NON-NLS-1$
		if (r.statusCode() != 204 && r.statusCode() != 200 && r.statusCode() != 404) {
			throw error(key, r);
		}
	}

	// ------------------------------------------------------------------------------------------------ requests

	private Duration transferTimeout(long bytes) {
		// at least 1 MB/s after the usual deadline
		return settings.timeout().plusSeconds(bytes / 1_000_000);
	}

	private HttpResponse<byte[]> send(String method, String key, Map<String, String> query,
			Map<String, String> headers, byte[] body, Duration timeout, boolean idempotent) throws IOException {
		IOException last = null;
		for (int attempt = 1; attempt <= (idempotent ? ATTEMPTS : 1); attempt++) {
			if (attempt > 1) {
				pause(attempt);
			}
			try {
				HttpResponse<byte[]> r = http.send(request(method, key, query, headers, body, timeout),
						BodyHandlers.ofByteArray());
				if (!idempotent || !(r.statusCode() >= 500 || r.statusCode() == 429) || attempt == ATTEMPTS) {
					return r;
				}
				last = error(key, r);
			} catch (InterruptedException e) {
				Thread.currentThread().interrupt();
				throw new InterruptedIOException(key + ": interrupted"); //$NON-NLS-1$
			} catch (IOException e) {
				last = new IOException(describe(method, key) + ": " + e, e); //$NON-NLS-1$
			}
		}
		throw last;
	}

	private HttpResponse<InputStream> sendStreaming(String method, String key, Map<String, String> headers,
			Duration timeout) throws IOException {
		try {
			return http.send(request(method, key, Map.of(), headers, new byte[0], timeout), BodyHandlers.ofInputStream());
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			throw new InterruptedIOException(key + ": interrupted"); //$NON-NLS-1$
		} catch (IOException e) {
			throw new IOException(describe(method, key) + ": " + e, e); //$NON-NLS-1$
		}
	}

	private String describe(String method, String key) {
		return method + ' ' + settings.endpoint() + " bucket " + settings.bucket() + " key " + key; //$NON-NLS-1$ //$NON-NLS-2$
	}

	private static void pause(int attempt) throws InterruptedIOException {
		try {
			Thread.sleep(200L << attempt);
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			throw new InterruptedIOException();
		}
	}

	private HttpRequest request(String method, String key, Map<String, String> query, Map<String, String> headers,
			byte[] body, Duration timeout) {
		URI endpoint = settings.endpoint();
		String host = endpoint.getHost();
		String path;
		if (settings.pathStyle()) {
			path = "/" + settings.bucket() + (key.isEmpty() ? "" : '/' + SigV4.encodePath(key)); //$NON-NLS-1$ //$NON-NLS-2$
		} else {
			host = settings.bucket() + '.' + host;
			path = "/" + SigV4.encodePath(key); //$NON-NLS-1$
		}
		String authority = host + (endpoint.getPort() == -1 ? "" : ":" + endpoint.getPort()); //$NON-NLS-1$ //$NON-NLS-2$
		String basePath = endpoint.getRawPath() == null ? "" : endpoint.getRawPath().replaceAll("/+$", ""); //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
		path = basePath + path;
		String queryString = SigV4.canonicalQuery(query);
		URI uri = URI.create(endpoint.getScheme() + "://" + authority + path //$NON-NLS-1$
				+ (queryString.isEmpty() ? "" : "?" + queryString)); //$NON-NLS-1$ //$NON-NLS-2$
		HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(timeout).method(method,
				body.length == 0 && !"PUT".equals(method) ? BodyPublishers.noBody() : BodyPublishers.ofByteArray(body)); //$NON-NLS-1$
		Optional<Credentials> credentials = settings.credentials();
		if (credentials.isPresent()) {
			SigV4.sign(method, path, query, authority, headers, SigV4.sha256Hex(body), Instant.now(),
					credentials.get(), settings.region()).forEach(b::setHeader);
		} else {
			headers.forEach(b::setHeader);
		}
		return b.build();
	}

	private static byte[] read(FileChannel channel, long position, int length) throws IOException {
		ByteBuffer buffer = ByteBuffer.allocate(length);
		while (buffer.hasRemaining()) {
			if (channel.read(buffer, position + buffer.position()) < 0) {
				throw new IOException("the file ended before " + (position + length) + " bytes"); //$NON-NLS-1$ //$NON-NLS-2$
			}
		}
		return buffer.array();
	}

	/** @return the future's value; its IOException or CancellationException as it was thrown */
	static <T> T await(Future<T> future) throws IOException {
		try {
			return future.get();
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			throw new InterruptedIOException();
		} catch (ExecutionException e) {
			if (e.getCause() instanceof IOException io) {
				throw io;
			}
			if (e.getCause() instanceof CancellationException c) {
				throw c;
			}
			throw new IOException(e.getCause());
		}
	}

	// ------------------------------------------------------------------------------------------------ XML

	private S3Exception error(String what, HttpResponse<byte[]> r) {
		return error(what, r.statusCode(), r.body());
	}

	private static S3Exception error(String what, int status, byte[] body) {
		String code = ""; //$NON-NLS-1$
		String message = ""; //$NON-NLS-1$
		if (body != null && body.length > 0) {
			try {
				Element root = parse(what, body).getDocumentElement();
				code = text(root, "Code"); //$NON-NLS-1$
				message = text(root, "Message"); //$NON-NLS-1$
			} catch (IOException e) {
				// not an S3 error document: the status says it
			}
		}
		return new S3Exception(what, status, code, message);
	}

	private static Document parse(String what, byte[] xml) throws IOException {
		try {
			DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
			f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true); //$NON-NLS-1$
			f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
			f.setExpandEntityReferences(false);
			return f.newDocumentBuilder().parse(new ByteArrayInputStream(xml));
		} catch (ParserConfigurationException | SAXException e) {
			throw new IOException(what + ": the store's answer is not the XML expected: " + e.getMessage(), e); //$NON-NLS-1$
		}
	}

	private static String text(Element parent, String name) {
		NodeList nodes = parent.getElementsByTagName(name);
		return nodes.getLength() == 0 ? "" : nodes.item(0).getTextContent().trim(); //$NON-NLS-1$
	}

	private static String escape(String s) {
		return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;"); //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$ //$NON-NLS-4$ //$NON-NLS-5$ //$NON-NLS-6$ //$NON-NLS-7$ //$NON-NLS-8$
	}
}
