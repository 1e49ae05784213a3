package bankbench.web;

import java.time.Duration;
import java.util.function.Consumer;

import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http1.Http1Config;

/**
 * Helidon's WebServer with the connection limits the other services state alike
 * (docs/configuration.md; bank-go server/http.go, bank-java application.yaml): at most
 * 10,000 connections open (more wait in the listen backlog), a client idle for 10 s
 * between requests, or too slow with one ({@link StallGuard}), is dropped, and a
 * connection serves any number of requests (Helidon sets no limit). Each connection is
 * served by a virtual thread, which runs its requests' handlers.
 */
public final class Server {

	private static final int MAX_CONNECTIONS = 10_000;

	/** The listen backlog, Tomcat's accept-count; the kernel's somaxconn caps it. */
	private static final int BACKLOG = 4096;

	private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(10);

	/** How often idle connections are looked for: the idle timeout's precision. */
	private static final Duration IDLE_CHECK = Duration.ofSeconds(1);

	/** How long requests in flight may take to finish once the server stops. */
	private static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(10);

	private Server() {
	}

	/** Starts a server on port with the routing that routes builds. */
	public static WebServer start(int port, Consumer<HttpRouting.Builder> routes) {
		StallGuard guard = StallGuard.start();
		return WebServer.builder()
			.port(port)
			.backlog(BACKLOG)
			.maxTcpConnections(MAX_CONNECTIONS)
			.idleConnectionTimeout(IDLE_TIMEOUT)
			.idleConnectionPeriod(IDLE_CHECK)
			.shutdownGracePeriod(SHUTDOWN_GRACE)
			// The application stops the server itself, then closes the pool.
			.shutdownHook(false)
			.addProtocol(Http1Config.builder().addReceiveListener(guard).addSendListener(guard).build())
			.directHandlers(ApiErrors.directHandlers())
			.routing(routes)
			.build()
			.start();
	}

}
