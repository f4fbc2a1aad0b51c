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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A TCP relay on 127.0.0.1 in front of the test's S3 server that counts the HTTP/1.1 requests passing through it:
 * what the S3 server sees from a client whose endpoint is the relay. Bytes pass unchanged (the signed Host header
 * names the relay, which the server checks the signature against as received); the relay reads each request's head
 * to count it and skips its body by its Content-Length.
 */
public final class CountingRelay implements AutoCloseable {

	public final URI endpoint;
	private final int upstreamPort;
	private final ServerSocket server;
	private final List<String> requests = new ArrayList<>();
	private final List<Socket> sockets = new ArrayList<>();

	public CountingRelay(URI upstream) throws IOException {
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
				start(() -> upstream.getInputStream().transferTo(client.getOutputStream()), client, upstream);
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
