package dev.branchstate.ui.tests;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import dev.branchstate.core.internal.remote.Credentials;
import dev.branchstate.core.internal.remote.RemoteSettings;
import dev.branchstate.core.internal.remote.S3Client;

/**
 * A real S3 server on 127.0.0.1 for the UI tests: S3Proxy (the jar the build copies, system property
 * {@code branchstate.tests.s3proxy}) on its filesystem backend, checking signatures, with one empty bucket. The core
 * tests' S3Server does the same for core; this one is the part the UI tests need.
 */
final class S3ProxyServer implements AutoCloseable {

	static final String BUCKET = "team-states";

	final URI endpoint;
	final Credentials credentials = new Credentials("ui-test-access", "ui-test-secret-0123456789");
	private final Process process;

	S3ProxyServer(Path folder) throws Exception {
		String jar = System.getProperty("branchstate.tests.s3proxy");
		if (jar == null || !Files.isRegularFile(Path.of(jar))) {
			throw new IllegalStateException("S3Proxy jar not found (system property branchstate.tests.s3proxy): " + jar);
		}
		int port;
		try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			port = s.getLocalPort();
		}
		endpoint = URI.create("http://127.0.0.1:" + port);
		Path data = Files.createDirectories(folder.resolve("data"));
		Path properties = folder.resolve("s3proxy.properties");
		Files.writeString(properties, String.join("\n", "s3proxy.endpoint=" + endpoint,
				"s3proxy.authorization=aws-v2-or-v4", "s3proxy.identity=" + credentials.accessKey(),
				"s3proxy.credential=" + credentials.secretKey(), "jclouds.provider=filesystem",
				"jclouds.filesystem.basedir=" + data, ""));
		String java = ProcessHandle.current().info().command().orElse("java");
		process = new ProcessBuilder(List.of(java, "-Xmx256m", "-jar", jar, "--properties", properties.toString()))
				.redirectErrorStream(true).redirectOutput(folder.resolve("s3proxy.log").toFile()).start();
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		while (true) {
			try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
				break;
			} catch (IOException e) {
				if (!process.isAlive() || System.nanoTime() > deadline) {
					close();
					throw new IllegalStateException("S3Proxy did not start; its log: "
							+ Files.readString(folder.resolve("s3proxy.log")), e);
				}
				Thread.sleep(100);
			}
		}
		new S3Client(new RemoteSettings(endpoint, BUCKET, "", "us-east-1", true, Optional.of(credentials),
				Optional.empty(), Duration.ofSeconds(10))).createBucket();
	}

	@Override
	public void close() throws InterruptedException {
		process.destroy();
		if (!process.waitFor(10, TimeUnit.SECONDS)) {
			process.destroyForcibly().waitFor();
		}
	}
}
