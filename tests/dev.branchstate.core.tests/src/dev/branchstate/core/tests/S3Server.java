package dev.branchstate.core.tests;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import dev.branchstate.core.internal.remote.Credentials;
import dev.branchstate.core.internal.remote.RemoteSettings;
import dev.branchstate.core.internal.remote.S3Client;

/**
 * A real S3 server on 127.0.0.1 for the tests: S3Proxy (from Maven Central, see the pom) on its filesystem backend,
 * checking AWS Signature V4 with credentials made up for each server, and one bucket.
 */
public final class S3Server implements AutoCloseable {

	public static final String BUCKET = "states"; //$NON-NLS-1$

	public final Path folder;
	public final URI endpoint;
	public final Credentials credentials;
	/** The filesystem backend's folder: a folder per bucket, a file per object. */
	private final Path data;
	private final Process process;

	public S3Server(Path folder) throws Exception {
		this(folder, Files.createDirectories(folder.resolve("data")), true); //$NON-NLS-1$
	}

	/**
	 * @return a second server over the same objects that answers anonymous requests: a public bucket (read-only for
	 *         Branchstate, which never writes without credentials)
	 */
	public S3Server anonymous(Path otherFolder) throws Exception {
		return new S3Server(otherFolder, data, false);
	}

	private S3Server(Path folder, Path data, boolean signed) throws Exception {
		this.folder = folder;
		this.data = data;
		String jar = System.getProperty("branchstate.tests.s3proxy"); //$NON-NLS-1$
		if (jar == null || !Files.isRegularFile(Path.of(jar))) {
			throw new IllegalStateException("S3Proxy jar not found (system property branchstate.tests.s3proxy): " + jar); //$NON-NLS-1$
		}
		int port;
		try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			port = s.getLocalPort();
		}
		SecureRandom random = new SecureRandom();
		this.credentials = new Credentials("test" + HexFormat.of().toHexDigits(random.nextInt()), //$NON-NLS-1$
				HexFormat.of().formatHex(random.generateSeed(20)));
		this.endpoint = URI.create("http://127.0.0.1:" + port); //$NON-NLS-1$
		Files.createDirectories(folder);
		Path properties = folder.resolve("s3proxy.properties"); //$NON-NLS-1$
		Files.writeString(properties, String.join("\n", //$NON-NLS-1$
				"s3proxy.endpoint=" + endpoint, //$NON-NLS-1$
				"s3proxy.authorization=" + (signed ? "aws-v2-or-v4" : "none"), //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
				"s3proxy.identity=" + credentials.accessKey(), //$NON-NLS-1$
				"s3proxy.credential=" + credentials.secretKey(), //$NON-NLS-1$
				"jclouds.provider=filesystem", //$NON-NLS-1$
				"jclouds.filesystem.basedir=" + data, "")); //$NON-NLS-1$ //$NON-NLS-2$
		String java = ProcessHandle.current().info().command().orElse("java"); //$NON-NLS-1$
		this.process = new ProcessBuilder(List.of(java, "-Xmx256m", "-jar", jar, "--properties", properties.toString())) //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
				.redirectErrorStream(true).redirectOutput(folder.resolve("s3proxy.log").toFile()).start(); //$NON-NLS-1$
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		while (true) {
			try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
				break;
			} catch (IOException e) {
				if (!process.isAlive() || System.nanoTime() > deadline) {
					close();
					throw new IllegalStateException("S3Proxy did not start; its log: " //$NON-NLS-1$
							+ Files.readString(folder.resolve("s3proxy.log")), e); //$NON-NLS-1$
				}
				Thread.sleep(100);
			}
		}
		if (signed) {
			client(credentials).createBucket();
		}
	}

	/** @return settings for this server's bucket with these credentials (none: anonymous), no key pinned */
	public RemoteSettings settings(Credentials c) {
		return new RemoteSettings(endpoint, BUCKET, "team/states", "us-east-1", true, Optional.ofNullable(c), //$NON-NLS-1$ //$NON-NLS-2$
				Optional.empty(), Duration.ofSeconds(10));
	}

	public S3Client client(Credentials c) {
		return new S3Client(settings(c));
	}

	/** @return the file the filesystem backend keeps an object in */
	public Path objectFile(String key) {
		return data.resolve(BUCKET).resolve(key);
	}

	@Override
	public void close() throws InterruptedException {
		process.destroy();
		if (!process.waitFor(10, TimeUnit.SECONDS)) {
			process.destroyForcibly().waitFor();
		}
	}
}
