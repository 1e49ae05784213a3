package bankbench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.helidon.webserver.WebServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import bankbench.system.Metrics;
import bankbench.system.Pool;
import bankbench.system.Settings;
import bankbench.web.Server;

/**
 * The service's whole routing, filters and connection settings on an ephemeral port, over
 * the pool given: a fake one in the unit tests, a real one in the integration tests.
 */
public final class TestService implements AutoCloseable {

	private final HttpClient client = HttpClient.newHttpClient();

	private final DataSource pool;

	private final PrometheusMeterRegistry registry;

	private final Runnable closePool;

	private final WebServer server;

	private TestService(DataSource pool, PrometheusMeterRegistry registry, int maxConcurrentRequests,
			Runnable closePool) {
		this.pool = pool;
		this.registry = registry;
		this.closePool = closePool;
		this.server = Server.start(0,
				(routing) -> BankApplication.routing(routing, pool, registry, maxConcurrentRequests));
	}

	/** Starts the service on pool with an admission limit of 1,000. */
	public static TestService start(DataSource pool) {
		return start(pool, 1000);
	}

	public static TestService start(DataSource pool, int maxConcurrentRequests) {
		return new TestService(pool, Metrics.registry(), maxConcurrentRequests, () -> {
		});
	}

	/** Starts the service on a pool of its own on database, closed with it. */
	public static TestService on(Settings.Database database) {
		PrometheusMeterRegistry registry = Metrics.registry();
		HikariDataSource pool = Pool.open(database, registry);
		return new TestService(pool, registry, 1000, pool::close);
	}

	public DataSource pool() {
		return this.pool;
	}

	public PrometheusMeterRegistry registry() {
		return this.registry;
	}

	/** Sends method to path with body (none when null) as application/json. */
	public HttpResponse<String> send(String method, String path, String body) {
		HttpRequest.Builder request = HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + this.server.port() + path))
			.method(method,
					(body != null) ? HttpRequest.BodyPublishers.ofString(body) : HttpRequest.BodyPublishers.noBody());
		if (body != null) {
			request.header("Content-Type", "application/json");
		}
		try {
			return this.client.send(request.build(), HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new AssertionError(method + " " + path + " failed", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AssertionError(ex);
		}
	}

	public HttpResponse<String> get(String path) {
		return send("GET", path, null);
	}

	/**
	 * Sends bytes as they are, on a connection of their own, and returns all that comes
	 * back until the server closes it or stops sending for a second.
	 */
	public String raw(String request) throws IOException {
		try (Socket socket = new Socket("127.0.0.1", this.server.port())) {
			socket.setSoTimeout(1000);
			OutputStream out = socket.getOutputStream();
			out.write(request.getBytes(StandardCharsets.ISO_8859_1));
			out.flush();
			InputStream in = socket.getInputStream();
			StringBuilder answer = new StringBuilder();
			byte[] buffer = new byte[8192];
			try {
				for (int n; (n = in.read(buffer)) > 0;) {
					answer.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
				}
			}
			catch (java.net.SocketTimeoutException ex) {
				// Still open: what came is the answer.
			}
			return answer.toString();
		}
	}

	@Override
	public void close() {
		this.server.stop();
		this.closePool.run();
	}

}
