package bankbench.web;

import java.util.concurrent.Semaphore;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The admission limit ({@link AdmissionLimit}, as the Go service's {@code admit} and
 * bank-java's filter): at most {@code MAX_CONCURRENT_REQUESTS} requests held at once,
 * running or waiting for a pooled connection; one more is answered 503 at once, with
 * {@code Retry-After}, not queued. Every request runs on a virtual thread of its own, so
 * without a bound every request past capacity holds its thread and buffers until
 * HikariCP's timeout, and the heap held grows with the arrival rate. Requests to
 * {@code /} and {@code /metrics} are not counted.
 * <p>
 * A filter with {@link Semaphore#tryAcquire()}, which never blocks, rather than the
 * listener's own concurrency limit: that one counts every request, {@code /metrics}
 * included, answers in plain text and closes the connection, and is not seen by the
 * filters, so a refused request would not be counted. This filter runs inside
 * {@link RequestMetrics}: a refused request is counted (uri {@code UNKNOWN}, status 503).
 */
public final class AdmissionFilter implements Filter {

	private final AdmissionLimit limit;

	/**
	 * Holds at most limit requests at once; its gauges go to registry, under the Go
	 * service's names (api/metrics.md).
	 */
	public AdmissionFilter(int limit, MeterRegistry registry) {
		this.limit = new AdmissionLimit(limit);
		this.limit.bindTo(registry);
	}

	@Override
	public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
		if (!AdmissionLimit.counts(req.prologue().uriPath().path())) {
			chain.proceed();
			return;
		}
		if (!this.limit.tryAdmit()) {
			res.header(HeaderNames.RETRY_AFTER, AdmissionLimit.RETRY_AFTER_SECONDS);
			ApiErrors.send(req, res, Status.SERVICE_UNAVAILABLE_503, AdmissionLimit.OVERLOADED);
			return;
		}
		try {
			chain.proceed();
		}
		finally {
			this.limit.release();
		}
	}

}
