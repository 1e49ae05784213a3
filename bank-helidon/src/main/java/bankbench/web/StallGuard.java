package bankbench.web;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.helidon.http.Headers;
import io.helidon.http.HttpPrologue;
import io.helidon.http.Status;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.http1.Http1ConnectionListener;

/**
 * Drops a client that is too slow with its request, as the other services' servers do
 * (bank-go's {@code ReadHeaderTimeout} and {@code ReadTimeout}; Tomcat's
 * {@code connection-timeout}): the headers must arrive within {@link #HEADERS} of the
 * request line, and the request be answered within {@link #REQUEST}. Helidon's own idle
 * timeout closes a connection only while it waits for a request line; once that has come,
 * it reads the rest without a deadline, and a client that stops sending holds its
 * connection and virtual thread (and, in a body, an admission permit) for ever.
 * <p>
 * It listens to each HTTP/1 connection's events on the connection's own thread, and
 * interrupts the thread of a request late on its deadline: a virtual thread interrupted
 * in a read of its socket channel closes the channel, which ends the connection.
 */
public final class StallGuard implements Http1ConnectionListener {

	/** How long the headers may take after the request line, net/http's 10 s. */
	static final Duration HEADERS = Duration.ofSeconds(10);

	/**
	 * How long a whole request may take, net/http's 20 s: above the acquire timeout and
	 * the 10 s a database call may take.
	 */
	static final Duration REQUEST = Duration.ofSeconds(20);

	/** A request being read or served, and its next deadline (System.nanoTime). */
	private record Watch(Thread thread, long startedAt, long deadline) {
	}

	private final Map<ConnectionContext, Watch> watched = new ConcurrentHashMap<>();

	private final long headersNanos;

	private final long requestNanos;

	private StallGuard(Duration headers, Duration request) {
		this.headersNanos = headers.toNanos();
		this.requestNanos = request.toNanos();
	}

	/** Starts a guard of {@link #HEADERS} and {@link #REQUEST}. */
	public static StallGuard start() {
		return start(HEADERS, REQUEST, Duration.ofSeconds(1));
	}

	/**
	 * Starts a guard with these deadlines, whose watchdog looks for late requests every
	 * period.
	 */
	static StallGuard start(Duration headers, Duration request, Duration period) {
		StallGuard guard = new StallGuard(headers, request);
		ScheduledExecutorService watchdog = Executors
			.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("stall-guard").daemon().factory());
		watchdog.scheduleWithFixedDelay(guard::interruptLate, period.toNanos(), period.toNanos(), TimeUnit.NANOSECONDS);
		return guard;
	}

	@Override
	public void prologue(ConnectionContext ctx, HttpPrologue prologue) {
		long now = System.nanoTime();
		this.watched.put(ctx, new Watch(Thread.currentThread(), now, now + this.headersNanos));
	}

	@Override
	public void headers(ConnectionContext ctx, Headers headers) {
		this.watched.computeIfPresent(ctx, (connection, watch) -> new Watch(watch.thread(), watch.startedAt(),
				watch.startedAt() + this.requestNanos));
	}

	@Override
	public void status(ConnectionContext ctx, Status status) {
		this.watched.remove(ctx);
	}

	/**
	 * Interrupts the requests past their deadline. Removing the entry first decides a
	 * race with the answer: a request answered in time has removed it already.
	 */
	private void interruptLate() {
		long now = System.nanoTime();
		this.watched.forEach((ctx, watch) -> {
			if (now - watch.deadline() > 0 && this.watched.remove(ctx, watch)) {
				watch.thread().interrupt();
			}
		});
	}

}
