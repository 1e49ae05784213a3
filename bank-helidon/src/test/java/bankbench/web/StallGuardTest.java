package bankbench.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.helidon.webserver.WebServer;
import io.helidon.webserver.http1.Http1Config;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The guard at short deadlines: 300 ms for the headers, 1 s for a whole request. */
class StallGuardTest {

	private static WebServer server;

	@BeforeAll
	static void start() {
		StallGuard guard = StallGuard.start(Duration.ofMillis(300), Duration.ofSeconds(1), Duration.ofMillis(50));
		server = WebServer.builder()
			.port(0)
			.addProtocol(Http1Config.builder().addReceiveListener(guard).addSendListener(guard).build())
			.routing((routing) -> routing.post("/", (req, res) -> res.send(req.content().as(String.class))))
			.build()
			.start();
	}

	@AfterAll
	static void stop() {
		server.stop();
	}

	@Test
	void headersThatStopComingEndTheConnection() throws IOException {
		assertDropped("POST / HTTP/1.1\r\nHo", Duration.ofMillis(300));
	}

	@Test
	void aBodyThatStopsComingEndsTheConnection() throws IOException {
		assertDropped("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{", Duration.ofSeconds(1));
	}

	@Test
	void aRequestInTimeIsAnsweredAndItsConnectionKept() throws IOException, InterruptedException {
		try (Socket socket = connect()) {
			for (int i = 0; i < 2; i++) {
				send(socket, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok");
				byte[] answer = new byte[1024];
				int n = socket.getInputStream().read(answer);
				assertTrue(new String(answer, 0, n, StandardCharsets.US_ASCII).endsWith("\r\n\r\nok"));
				Thread.sleep(1200); // past both deadlines, idle between requests
			}
		}
	}

	private static void assertDropped(String request, Duration deadline) throws IOException {
		try (Socket socket = connect()) {
			long sent = System.nanoTime();
			send(socket, request);
			InputStream in = socket.getInputStream();
			while (in.read() >= 0) {
				// whatever comes, until the end of the stream
			}
			long waited = System.nanoTime() - sent;
			assertTrue(waited >= deadline.toNanos() && waited < deadline.toNanos() + 2_000_000_000L,
					Duration.ofNanos(waited) + " for a deadline of " + deadline);
		}
	}

	private static Socket connect() throws IOException {
		Socket socket = new Socket("127.0.0.1", server.port());
		socket.setSoTimeout(5000);
		return socket;
	}

	private static void send(Socket socket, String request) throws IOException {
		OutputStream out = socket.getOutputStream();
		out.write(request.getBytes(StandardCharsets.US_ASCII));
		out.flush();
		assertEquals(false, socket.isClosed());
	}

}
