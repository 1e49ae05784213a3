package bankbench.web;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Semaphore;
import java.util.function.IntSupplier;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.util.Assert;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The admission limit ({@link AdmissionLimit}, as the Go service's {@code admit}): at
 * most {@code MAX_CONCURRENT_REQUESTS} requests held at once, running or waiting for a
 * pooled connection; one more is answered 503 at once, with {@code Retry-After}, not
 * queued. Without a bound, on virtual threads every request past capacity holds its
 * thread and buffers until HikariCP's timeout, so the heap held grows with the arrival
 * rate until the JVM runs out of it. Requests to {@code /} and {@code /metrics} are not
 * counted.
 * <p>
 * A filter with {@link Semaphore#tryAcquire()}, which never blocks, rather than Spring
 * Framework 7's {@code @ConcurrencyLimit(policy = REJECT)}: that one keeps a throttle per
 * bean, so one limit per controller rather than one for the service, and acts only once
 * Spring MVC has dispatched the request. The filter runs inside Micrometer's observation
 * filter, so a refused request is counted (uri {@code UNKNOWN}, status 503).
 * <p>
 * On platform threads the requests past Tomcat's 200 request threads wait in its queue,
 * where no filter sees them, and when the CPU is the bottleneck that is where they pile
 * up: so the requests held are those in the filter plus those queued for a thread
 * ({@code waiting}), and a thread that takes a request while they reach the limit answers
 * it 503 in microseconds, which drains the queue (docs/configuration.md).
 */
@Component
class AdmissionFilter extends OncePerRequestFilter implements MeterBinder {

	private static final byte[] REFUSED = ("{\"status\":\"Error\",\"message\":\"" + AdmissionLimit.OVERLOADED + "\"}")
		.getBytes(StandardCharsets.UTF_8);

	private final AdmissionLimit limit;

	private final IntSupplier waiting;

	/**
	 * @param limit the requests held at most
	 * @param queue Tomcat's queue of requests waiting for a request thread; none in a
	 * MockMvc test slice, where nothing queues
	 */
	@Autowired
	AdmissionFilter(@Value("${bankbench.max-concurrent-requests}") int limit, ObjectProvider<TomcatQueue> queue) {
		this(limit, queue.getIfAvailable(TomcatQueue::new));
	}

	/**
	 * @param limit the requests held at most
	 * @param waiting the requests waiting for a request thread, held too
	 */
	AdmissionFilter(int limit, IntSupplier waiting) {
		Assert.isTrue(limit >= 1, () -> "MAX_CONCURRENT_REQUESTS=" + limit + ": want an integer from 1");
		this.limit = new AdmissionLimit(limit);
		this.waiting = waiting;
	}

	@Override
	protected boolean shouldNotFilter(HttpServletRequest request) {
		return !AdmissionLimit.counts(request.getRequestURI());
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		if (!this.limit.tryAdmit(this.waiting.getAsInt())) {
			response.setStatus(HttpStatus.SERVICE_UNAVAILABLE.value());
			response.setHeader(HttpHeaders.RETRY_AFTER, AdmissionLimit.RETRY_AFTER_SECONDS);
			response.setContentType(MediaType.APPLICATION_JSON_VALUE);
			response.setContentLength(REFUSED.length);
			response.getOutputStream().write(REFUSED);
			return;
		}
		try {
			chain.doFilter(request, response);
		}
		finally {
			this.limit.release();
		}
	}

	/** The gauges of the limit (api/metrics.md). */
	@Override
	public void bindTo(MeterRegistry registry) {
		this.limit.bindTo(registry);
	}

}
