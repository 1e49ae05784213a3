package bankbench.web;

import java.util.concurrent.Semaphore;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * The admission limit, as the Go service's {@code admit}: at most
 * {@code MAX_CONCURRENT_REQUESTS} requests held at once, running or waiting for a pooled
 * connection; one more is answered 503 {@value #OVERLOADED} at once, with
 * {@code Retry-After}, not queued. Requests to {@code /} and {@code /metrics} are not
 * counted: they touch no database, and liveness and monitoring must answer when the
 * service is busiest. Each service's {@code AdmissionFilter} applies it with a
 * {@link Semaphore#tryAcquire()}, which never blocks, and says why its framework's own
 * limit would not do.
 */
final class AdmissionLimit implements MeterBinder {

	/** The message of a request refused by the limit. */
	static final String OVERLOADED = "service overloaded";

	/**
	 * Seconds to wait before retrying: the requests held drain well within it at the
	 * rates the service serves.
	 */
	static final String RETRY_AFTER_SECONDS = "1";

	private final int limit;

	private final Semaphore held;

	/** Holds at most limit requests at once. */
	AdmissionLimit(int limit) {
		this.limit = limit;
		this.held = new Semaphore(limit);
	}

	/**
	 * Reports whether a request to path is held under the limit: all but {@code /} and
	 * {@code /metrics}.
	 */
	static boolean counts(String path) {
		return !path.equals("/") && !path.equals("/metrics");
	}

	/**
	 * Holds a request, unless the limit is reached. A request held is let go with
	 * {@link #release()} once answered.
	 */
	boolean tryAdmit() {
		return this.held.tryAcquire();
	}

	/**
	 * Holds a request, unless the limit is reached counting waiting more: requests the
	 * server has queued for a thread, where no filter sees them, which are held too.
	 */
	boolean tryAdmit(int waiting) {
		return waiting < this.held.availablePermits() && this.held.tryAcquire();
	}

	/** Lets go of a request held. */
	void release() {
		this.held.release();
	}

	/** The gauges of the limit, under the Go service's names (api/metrics.md). */
	@Override
	public void bindTo(MeterRegistry registry) {
		Gauge.builder("http.server.requests.concurrent", this.held, (held) -> this.limit - held.availablePermits())
			.description("Requests held now under the admission limit: running or waiting for a pooled connection.")
			.register(registry);
		Gauge.builder("http.server.requests.concurrent.max", () -> this.limit)
			.description("The admission limit: past it, a request is answered 503 at once.")
			.register(registry);
	}

}
