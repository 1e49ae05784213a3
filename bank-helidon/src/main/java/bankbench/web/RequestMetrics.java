package bankbench.web;

import java.time.Duration;

import io.helidon.webserver.ServerConnectionException;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Times every request under Micrometer's name and labels for it, those bank-java's Spring
 * MVC gives it and the Go service copies (api/metrics.md): {@code http.server.requests}
 * by method, uri (the route pattern, or {@code NOT_FOUND} and {@code UNKNOWN} for what no
 * route served) and status, with the buckets of the other services.
 */
public final class RequestMetrics implements Filter {

	/**
	 * The status of a request whose client went away before its answer: nginx's 499, as
	 * the other services count it.
	 */
	static final String CLIENT_GONE = "499";

	/** The request histogram's buckets, those of bank-go metrics.go. */
	private static final Duration[] BUCKETS = { Duration.ofMillis(1), Duration.ofMillis(2).plusNanos(500_000),
			Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
			Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
			Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10) };

	private final MeterRegistry registry;

	public RequestMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	/**
	 * A request whose answer could not be written because its client had gone (it reset
	 * the connection: Helidon's {@link ServerConnectionException}) is counted under 499,
	 * not under the status nobody read. A client that closed its connection normally
	 * while its request waited is not seen: the request's thread is busy with it, nothing
	 * reads the connection, and the kernel takes the answer all the same.
	 */
	@Override
	public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
		long start = System.nanoTime();
		boolean clientGone = false;
		try {
			chain.proceed();
		}
		catch (ServerConnectionException ex) {
			clientGone = true;
			throw ex;
		}
		finally {
			int status = res.status().code();
			Timer.builder("http.server.requests")
				.tag("method", req.prologue().method().text())
				.tag("uri", uri(req.matchingPattern().orElse(""), status))
				.tag("status", clientGone ? CLIENT_GONE : Integer.toString(status))
				.serviceLevelObjectives(BUCKETS)
				.register(this.registry)
				.record(Duration.ofNanos(System.nanoTime() - start));
		}
	}

	/**
	 * The uri label of a request served by the route of pattern (empty: none), with
	 * Micrometer's names for what no route served: NOT_FOUND for a path no route serves,
	 * UNKNOWN otherwise (a method the path does not serve, a request refused by the
	 * admission limit).
	 */
	private static String uri(String pattern, int status) {
		if (!pattern.isEmpty()) {
			return pattern;
		}
		return (status == 404) ? "NOT_FOUND" : "UNKNOWN";
	}

}
