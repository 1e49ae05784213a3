package bankbench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * One row per request in JMeter's CSV (the columns bankbench.load.histograms reads): timeStamp
 * (start, epoch ms), elapsed (ms), label, responseCode, threadName, success.
 *
 * <p>Gatling's event loops only queue a small record ({@link #add}); one writer thread drains the
 * queue every {@link #DRAIN_MS} ms, formats the rows and writes them through a 256 KiB buffer, so
 * that no request waits on the disk. The same thread prints a progress line every
 * {@link #SUMMARY_MS} ms in the form of JMeter's summariser ("summary +" for the interval, with
 * "Active:", and "summary =" for the totals), which bankbench.load.jmeter already reads.
 */
final class Samples implements AutoCloseable {

	static final String HEADER = "timeStamp,elapsed,label,responseCode,threadName,success\n";

	private static final long DRAIN_MS = 100;

	private static final long SUMMARY_MS = 5_000;

	/** A request: status is the HTTP status, or -1 with noAnswer the text JMeter would write. */
	private record Sample(long start, int elapsed, String label, int status, String noAnswer, String threadPrefix,
			long userId, boolean ok) {
	}

	private final Path path;

	private final BufferedWriter out;

	private final ConcurrentLinkedQueue<Sample> queue = new ConcurrentLinkedQueue<>();

	private final Thread writer;

	private final StringBuilder row = new StringBuilder(256);

	private final String[] statusText = new String[600];

	private final LongAdder started = new LongAdder();

	private final LongAdder finished = new LongAdder();

	private volatile boolean closing;

	private boolean closed;

	private final LongAdder dropped = new LongAdder();

	private IOException failure;

	// Written by the writer thread only.
	private long written;

	private long errors;

	private final Interval interval = new Interval();

	private final Interval total = new Interval();

	private long nextSummaryMs;

	Samples(Path path) {
		this.path = path;
		try {
			Path parent = path.toAbsolutePath().getParent();
			if (parent != null) {
				Files.createDirectories(parent);
			}
			this.out = new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(path), StandardCharsets.US_ASCII),
					1 << 18);
			this.out.write(HEADER);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("cannot write the samples file " + path, ex);
		}
		for (int i = 0; i < this.statusText.length; i++) {
			this.statusText[i] = Integer.toString(i);
		}
		this.nextSummaryMs = System.currentTimeMillis() + SUMMARY_MS;
		this.writer = new Thread(this::drainLoop, "bankbench-samples");
		this.writer.setDaemon(true);
		this.writer.start();
	}

	/** An iteration (virtual user) began: JMeter's "Started". */
	void iterationStarted() {
		this.started.increment();
	}

	/** An iteration ran its last request: JMeter's "Finished". */
	void iterationFinished() {
		this.finished.increment();
	}

	/** Queues a request's row; called on Gatling's event loops. */
	void add(long start, int elapsed, String label, int status, String noAnswer, String threadPrefix, long userId,
			boolean ok) {
		if (this.closing) {
			this.dropped.increment();
			return;
		}
		this.queue.offer(new Sample(start, elapsed, label, status, noAnswer, threadPrefix, userId, ok));
	}

	private void drainLoop() {
		while (!this.closing) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(DRAIN_MS));
			drain();
			long now = System.currentTimeMillis();
			if (now >= this.nextSummaryMs) {
				summary(now, true);
				this.nextSummaryMs += SUMMARY_MS;
			}
		}
		drain();
	}

	private void drain() {
		try {
			Sample sample;
			while ((sample = this.queue.poll()) != null) {
				format(sample);
				this.out.append(this.row);
				this.written++;
				if (!sample.ok) {
					this.errors++;
				}
				this.interval.add(sample);
				this.total.add(sample);
			}
		}
		catch (IOException ex) {
			if (this.failure == null) {
				this.failure = ex;
			}
		}
	}

	private void format(Sample s) {
		StringBuilder b = this.row;
		b.setLength(0);
		b.append(s.start).append(',').append(s.elapsed).append(',');
		csv(b, s.label).append(',');
		if (s.status >= 0 && s.status < this.statusText.length) {
			b.append(this.statusText[s.status]);
		}
		else if (s.status >= 0) {
			b.append(s.status);
		}
		else {
			csv(b, s.noAnswer);
		}
		b.append(',').append(s.threadPrefix).append(s.userId).append(',').append(s.ok ? "true" : "false").append('\n');
	}

	/** A CSV field as JMeter writes it: quoted (quotes doubled) when it holds a comma, quote or newline. */
	static StringBuilder csv(StringBuilder b, String field) {
		boolean quote = false;
		for (int i = 0; i < field.length() && !quote; i++) {
			char c = field.charAt(i);
			quote = c == ',' || c == '"' || c == '\n' || c == '\r';
		}
		if (!quote) {
			return b.append(field);
		}
		b.append('"');
		for (int i = 0; i < field.length(); i++) {
			char c = field.charAt(i);
			if (c == '"') {
				b.append('"');
			}
			b.append(c);
		}
		return b.append('"');
	}

	/** JMeter's summariser lines: the interval ("summary +", with the iterations) and the totals. */
	private void summary(long now, boolean withInterval) {
		long active = this.started.sum() - this.finished.sum();
		if (withInterval && this.interval.count > 0) {
			System.out.println(this.interval.line("+", now, this.interval.startedAtMs) + " Active: " + active + " Started: " + this.started.sum()
					+ " Finished: " + this.finished.sum());
		}
		if (this.total.count > 0) {
			System.out.println(this.total.line("=", now, this.total.firstStart));
		}
		System.out.flush();
		this.interval.reset();
	}

	/**
	 * Ends the file: drains what is queued, prints the totals and closes it. Rows queued after
	 * this (a user cut by the end of the run) are counted as dropped.
	 */
	@Override
	public synchronized void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		this.closing = true;
		LockSupport.unpark(this.writer);
		try {
			this.writer.join();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.dropped.add(this.queue.size());
		summary(System.currentTimeMillis(), false);
		try {
			this.out.close();
		}
		catch (IOException ex) {
			if (this.failure == null) {
				this.failure = ex;
			}
		}
		System.out.printf("bankbench-gatling: %d samples (%d failed) written to %s%s%n", this.written, this.errors,
				this.path, this.dropped.sum() > 0 ? "; " + this.dropped.sum() + " arrived after the end and were dropped" : "");
		if (this.failure != null) {
			throw new UncheckedIOException("cannot write the samples file " + this.path, this.failure);
		}
	}

	/** Requests counted for a summariser line. */
	private static final class Interval {

		long count;

		long errors;

		long sumMs;

		long minMs = Long.MAX_VALUE;

		long maxMs;

		long firstStart = Long.MAX_VALUE;

		long startedAtMs = System.currentTimeMillis();

		void add(Sample s) {
			this.count++;
			this.errors += s.ok ? 0 : 1;
			this.sumMs += s.elapsed;
			this.minMs = Math.min(this.minMs, s.elapsed);
			this.maxMs = Math.max(this.maxMs, s.elapsed);
			this.firstStart = Math.min(this.firstStart, s.start);
		}

		void reset() {
			this.count = 0;
			this.errors = 0;
			this.sumMs = 0;
			this.minMs = Long.MAX_VALUE;
			this.maxMs = 0;
			this.firstStart = Long.MAX_VALUE;
			this.startedAtMs = System.currentTimeMillis();
		}

		String line(String kind, long now, long from) {
			long seconds = Math.max(1, Math.round((now - from) / 1000.0));
			return String.format("summary %s %6d in %02d:%02d:%02d = %6.1f/s Avg: %5d Min: %5d Max: %5d Err: %5d (%.2f%%)",
					kind, this.count, seconds / 3600, seconds / 60 % 60, seconds % 60, this.count / (double) seconds,
					this.count == 0 ? 0 : this.sumMs / this.count, this.count == 0 ? 0 : this.minMs, this.maxMs,
					this.errors, this.count == 0 ? 0.0 : 100.0 * this.errors / this.count);
		}

	}

}
