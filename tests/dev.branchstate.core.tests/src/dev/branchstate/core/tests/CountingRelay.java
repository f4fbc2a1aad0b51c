package dev.branchstate.core.tests;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A TCP relay on 127.0.0.1 in front of the test's S3 server that counts the HTTP/1.1 requests passing through it:
 * what the S3 server sees from a client whose endpoint is the relay. Bytes pass unchanged (the signed Host header
 * names the relay, which the server checks the signature against as received); the relay reads each request's head
 * to count it and skips its body by its Content-Length. With a {@link Link}, the relay also stands for a network
 * between the client and the store: each request waits one round trip, and the responses of all connections share
 * the link's bandwidth.
 */
public final class CountingRelay implements AutoCloseable {

	/**
	 * A simulated network link: {@code roundTrip} per request, {@code bytesPerSecond} for the responses of every
	 * connection together.
	 */
	public record Link(Duration roundTrip, long bytesPerSecond) {

		/**
		 * @param spec such as {@code 30ms,20mbit} (round trip, megabits a second); {@code null} or empty: none
		 * @return the link, or {@code null} for none (loopback as it is)
		 */
		public static Link parse(String spec) {
			if (spec == null || spec.isBlank()) {
				return null;
			}
			String[] parts = spec.strip().toLowerCase(Locale.ROOT).split(","); //$NON-NLS-1$
			if (parts.length != 2 || !parts[0].endsWith("ms") || !parts[1].endsWith("mbit")) { //$NON-NLS-1$ //$NON-NLS-2$
				throw new IllegalArgumentException("a link is <round trip>ms,<megabits a second>mbit, not " + spec); //$NON-NLS-1$
			}
			return new Link(Duration.ofMillis(Long.parseLong(parts[0].substring(0, parts[0].length() - 2))),
					Long.parseLong(parts[1].substring(0, parts[1].length() - 4)) * 1_000_000 / 8);
		}

		@Override
		public String toString() {
			long mbit = bytesPerSecond * 8 / 1_000_000;
			return roundTrip.toMillis() + " ms round trip, " + mbit + " Mbit/s"; //$NON-NLS-1$ //$NON-NLS-2$
		}
	}

	public final URI endpoint;
	private final Link link;
	/** When the link is free again ({@link System#nanoTime()}), for the bandwidth the responses share. */
	private long linkFreeAt;
	private final int upstreamPort;
	private final ServerSocket server;
	private final List<String> requests = new ArrayList<>();
	private final List<Socket> sockets = new ArrayList<>();

	public CountingRelay(URI upstream) throws IOException {
		this(upstream, null);
	}

	/** @param link the network the relay stands for, {@code null} for none */
	public CountingRelay(URI upstream, Link link) throws IOException {
		this.link = link;
		this.upstreamPort = upstream.getPort();
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		this.endpoint = URI.create("http://127.0.0.1:" + server.getLocalPort()); //$NON-NLS-1$
		Thread accept = new Thread(this::accept, "counting relay"); //$NON-NLS-1$
		accept.setDaemon(true);
		accept.start();
	}

	/** @return the request lines seen since the last call ({@code GET /bucket/key?query HTTP/1.1}), and forgets them */
	public List<String> takeRequests() {
		synchronized (requests) {
			List<String> taken = List.copyOf(requests);
			requests.clear();
			return taken;
		}
	}

	private void accept() {
		try {
			while (true) {
				Socket client = server.accept();
				Socket upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
				synchronized (sockets) {
					sockets.add(client);
					sockets.add(upstream);
				}
				start(() -> requests(new BufferedInputStream(client.getInputStream()), upstream.getOutputStream()), client,
						upstream);
				start(() -> responses(upstream.getInputStream(), client.getOutputStream()), client, upstream);
			}
		} catch (IOException e) {
			// closed
		}
	}

	private interface Pump {
		long run() throws IOException;
	}

	private static void start(Pump pump, Socket a, Socket b) {
		Thread thread = new Thread(() -> {
			try {
				pump.run();
			} catch (IOException e) {
				// a side closed
			} finally {
				try {
					a.close();
					b.close();
				} catch (IOException e) {
					// closing
				}
			}
		}, "counting relay pump"); //$NON-NLS-1$
		thread.setDaemon(true);
		thread.start();
	}

	/** Forwards requests one after the other, counting each. */
	private long requests(InputStream in, OutputStream out) throws IOException {
		while (true) {
			ByteArrayOutputStream head = new ByteArrayOutputStream();
			int last4 = 0;
			int b;
			while (last4 != 0x0d0a0d0a && (b = in.read()) >= 0) {
				head.write(b);
				last4 = last4 << 8 | b;
			}
			if (head.size() == 0) {
				return 0;
			}
			String text = head.toString(StandardCharsets.ISO_8859_1);
			long length = 0;
			for (String line : text.split("\r\n")) { //$NON-NLS-1$
				String lower = line.toLowerCase(Locale.ROOT);
				if (lower.startsWith("content-length:")) { //$NON-NLS-1$
					length = Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
				} else if (lower.startsWith("transfer-encoding:")) { //$NON-NLS-1$
					throw new IOException("the relay does not forward chunked bodies: " + text); //$NON-NLS-1$
				}
			}
			synchronized (requests) {
				requests.add(text.substring(0, text.indexOf("\r\n"))); //$NON-NLS-1$
			}
			if (link != null) {
				sleep(link.roundTrip().toNanos());
			}
			out.write(head.toByteArray());
			byte[] buffer = new byte[64 * 1024];
			while (length > 0) {
				int n = in.read(buffer, 0, (int) Math.min(buffer.length, length));
				if (n < 0) {
					return 0;
				}
				out.write(buffer, 0, n);
				length -= n;
			}
			out.flush();
		}
	}

	/** Forwards the responses, at the link's bandwidth when there is one. */
	private long responses(InputStream in, OutputStream out) throws IOException {
		if (link == null) {
			return in.transferTo(out);
		}
		byte[] buffer = new byte[16 * 1024];
		long total = 0;
		int n;
		while ((n = in.read(buffer)) >= 0) {
			long wait;
			synchronized (this) {
				long now = System.nanoTime();
				linkFreeAt = Math.max(now, linkFreeAt) + n * 1_000_000_000L / link.bytesPerSecond();
				wait = linkFreeAt - now;
			}
			sleep(wait);
			out.write(buffer, 0, n);
			out.flush();
			total += n;
		}
		return total;
	}

	private static void sleep(long nanos) throws IOException {
		try {
			Thread.sleep(Duration.ofNanos(nanos));
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			throw new IOException("interrupted", e); //$NON-NLS-1$
		}
	}

	@Override
	public void close() throws IOException {
		server.close();
		synchronized (sockets) {
			for (Socket socket : sockets) {
				socket.close();
			}
		}
	}
}
