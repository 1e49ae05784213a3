package bankbench;

import static io.gatling.javaapi.core.CoreDsl.StringBody;
import static io.gatling.javaapi.core.CoreDsl.atOnceUsers;
import static io.gatling.javaapi.core.CoreDsl.constantUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.doIf;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.jsonPath;
import static io.gatling.javaapi.core.CoreDsl.nothingFor;
import static io.gatling.javaapi.core.CoreDsl.pause;
import static io.gatling.javaapi.core.CoreDsl.responseTimeInMillis;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.CheckBuilder;
import io.gatling.javaapi.core.OpenInjectionStep;
import io.gatling.javaapi.core.PopulationBuilder;
import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Session;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;
import io.gatling.javaapi.http.HttpRequestActionBuilder;

/**
 * The scenarios of jmeter/src/test/jmeter/bank.jmx under the open model, request for request
 * (gatling/README.md has the mapping): each virtual user is one iteration, as each thread of the
 * plan's "open arrivals" group is, and users arrive at random times, `rate` a second for
 * `arrivals_s` seconds, or in `phases` of their own rate each ({@link Phase}). Every figure is a
 * Java system property with the plan's property name.
 *
 * <p>Each request is recorded in the samples file (JMeter's CSV columns, {@link Samples}): its
 * start, Gatling's response time, the plan's sampler name as label, the status, the iteration
 * and whether JMeter would have counted it a success.
 */
public class BankSimulation extends Simulation {

	// The plan's sampler names: the harness groups the samples by them.
	static final String CREATE = "create client";

	static final String BALANCE = "balance";

	static final String TRANSACTION = "transaction";

	// Session attributes of the sample being taken.
	private static final String T0 = "bankbench.t0";

	private static final String RT = "bankbench.rt";

	private static final String STATUS = "bankbench.status";

	// Set by a failed request: the iteration's later requests are skipped, as the plan's open
	// arrivals group does (on_sample_error=stopthread).
	private static final String STOPPED = "bankbench.stopped";

	// --- the plan's properties (jmeter/README.md), same names and defaults -------------------

	private final String host = text("host", "127.0.0.1");

	private final int port = (int) whole("port", 8080, 1);

	private final String scenarioName = text("scenario", "rematch");

	private final int hotAccounts = (int) whole("hot_accounts", 10, 1);

	private final long thinkMs = whole("think_ms", 0, 0);

	private final double rate = number("rate", 0);

	private final long arrivalsS = whole("arrivals_s", 0, 0);

	private final long drainS = whole("drain_s", 0, 0);

	// Closed-model properties: JMeter's alone.
	private final long users = whole("users", 0, 0);

	// --- Gatling's own ------------------------------------------------------------------------

	/** The arrivals in phases of their own rate ({@link Phase}), instead of `rate` and `arrivals_s`. */
	private final List<Phase> phases = Phase.parse(text("phases", ""));

	/** Seconds of arrivals at the first phase's rate before the plan's, to warm the generator's own JVM. */
	private final long warmupS = whole("gatling_warmup_s", 0, 0);

	private final Path samplesPath = Path.of(required("samples"));

	private final Samples samples;

	private final NoAnswerLog noAnswer = NoAnswerLog.install();

	/** The arrivals, phase by phase: the plan's one rate is a single phase. */
	private final List<Phase> schedule;

	public BankSimulation() {
		if (this.users > 0) {
			throw new IllegalArgumentException("users=" + this.users
					+ ": Gatling drives the open model only (rate, arrivals_s); the closed model is JMeter's");
		}
		if (!this.phases.isEmpty() && (this.rate != 0 || this.arrivalsS != 0)) {
			throw new IllegalArgumentException("phases replace rate and arrivals_s, which must then be 0; got rate="
					+ this.rate + " arrivals_s=" + this.arrivalsS);
		}
		if (this.phases.isEmpty() && (!(this.rate > 0) || this.arrivalsS < 1)) {
			throw new IllegalArgumentException(
					"the open model needs rate > 0 (iterations/s) and arrivals_s >= 1 (whole seconds); got rate="
							+ this.rate + " arrivals_s=" + this.arrivalsS);
		}
		this.schedule = this.phases.isEmpty() ? List.of(new Phase(this.arrivalsS, this.rate)) : this.phases;
		if (!this.scenarioName.equals("rematch") && !this.scenarioName.equals("contention")) {
			throw new IllegalArgumentException("scenario=" + this.scenarioName + ": rematch or contention");
		}
		if (this.scenarioName.equals("contention") && this.hotAccounts < 2) {
			throw new IllegalArgumentException("hot_accounts=" + this.hotAccounts
					+ ": contention transfers between two different accounts, so at least 2");
		}

		HttpProtocolBuilder protocol = http.baseUrl("http://" + this.host + ":" + this.port)
			// The plan's header manager: on every request, GET included.
			.contentTypeHeader("application/json")
			// As the plan's samplers: no redirects followed, nothing cached, no warm-up request
			// to an outside host. No shareConnections(): each user has its own keep-alive
			// connection, closed when it ends, as each JMeter thread has its own HttpClient.
			.disableFollowRedirect()
			.disableCaching()
			.disableWarmUp();

		this.samples = new Samples(this.samplesPath);
		Runtime.getRuntime().addShutdownHook(new Thread(this.samples::close, "bankbench-samples-close"));

		// Every population's offsets count from one instant, when Gatling starts injecting.
		List<OpenInjectionStep> measured = new ArrayList<>();
		if (this.warmupS > 0) {
			measured.add(nothingFor(this.warmupS));
		}
		// One user that sends nothing, at the instant the plan's arrivals begin: it prints
		// JMeter's start line, from which the harness counts the level's seconds. First in the
		// list, so that at offset 0 its event loop runs it before any iteration.
		List<OpenInjectionStep> start = new ArrayList<>(measured);
		start.add(atOnceUsers(1));
		List<PopulationBuilder> populations = new ArrayList<>();
		populations.add(scenario("start").exec(session -> {
			long now = System.currentTimeMillis();
			System.out.println("Starting standalone test @ " + Instant.ofEpochMilli(now) + " (" + now + ")");
			System.out.flush();
			return session;
		}).injectOpen(start));
		if (this.warmupS > 0) {
			populations.add(iteration("warmup", "warmup-")
				.injectOpen(constantUsersPerSec(this.schedule.get(0).rate()).during(this.warmupS).randomized()));
		}
		// The plan's "open arrivals": rate(R/sec) random_arrivals(S sec) places exactly
		// floor(R x S) arrivals at uniformly random times; randomized() does the same, phase
		// after phase.
		List<OpenInjectionStep> arrivals = new ArrayList<>(measured);
		for (Phase phase : this.schedule) {
			arrivals.add(constantUsersPerSec(phase.rate()).during(phase.seconds()).randomized());
		}
		populations.add(iteration("arrivals", "arrivals-").injectOpen(arrivals));
		setUp(populations).protocols(protocol)
			// The plan's pause(drain_s) after its arrivals: what is still running then is cut.
			.maxDuration(Duration.ofSeconds(this.warmupS + Phase.seconds(this.schedule) + this.drainS));
	}

	@Override
	public void before() {
		System.out.printf(
				"bankbench-gatling: %s at %s:%d, %s%s, think %d ms, drain %d s; samples to %s%n",
				this.scenarioName, this.host, this.port, Phase.describe(this.schedule),
				this.warmupS > 0 ? " after a generator warm-up of " + this.warmupS + " s" : "", this.thinkMs,
				this.drainS, this.samplesPath);
	}

	@Override
	public void after() {
		this.samples.close();
	}

	// --- the plan's scenarios -------------------------------------------------------------------

	/** One iteration of the chosen scenario; `prefix` + user id is its threadName. */
	private ScenarioBuilder iteration(String name, String prefix) {
		ChainBuilder body = this.scenarioName.equals("rematch") ? rematch(prefix) : contention(prefix);
		return scenario(name).exec(session -> {
			this.samples.iterationStarted();
			return session.set(STOPPED, false);
		}).exec(body).exec(session -> {
			this.samples.iterationFinished();
			return session;
		});
	}

	/**
	 * The 2019 plan: clients A (400) and B (300), their balances, a transfer of 10 from A to B,
	 * their balances again. An id not extracted is "missing", the JSON extractors' default, so
	 * that the requests that use it are still sent as they are under JMeter.
	 */
	private ChainBuilder rematch(String prefix) {
		return exec(session -> session.set("A", "missing").set("B", "missing"))
			.exec(sample(prefix, CREATE, http(CREATE).post("/client/new/400")
				.check(jsonPath("$.id").optional().saveAs("A"), jsonPath("$.balance").is("400"))))
			.exec(sample(prefix, CREATE, http(CREATE).post("/client/new/300")
				.check(jsonPath("$.id").optional().saveAs("B"), jsonPath("$.balance").is("300"))))
			.exec(sample(prefix, BALANCE, http(BALANCE).get("/client/#{A}/balance")
				.check(jsonPath("$.balance").is("400"))))
			.exec(sample(prefix, BALANCE, http(BALANCE).get("/client/#{B}/balance")
				.check(jsonPath("$.balance").is("300"))))
			.exec(sample(prefix, TRANSACTION, http(TRANSACTION).post("/transaction")
				.body(StringBody("{\"from_client_id\":#{A},\"to_client_id\":#{B},\"amount\":10}"))))
			.exec(sample(prefix, BALANCE, http(BALANCE).get("/client/#{A}/balance")
				.check(jsonPath("$.balance").is("390"))))
			.exec(sample(prefix, BALANCE, http(BALANCE).get("/client/#{B}/balance")
				.check(jsonPath("$.balance").is("310"))));
	}

	/**
	 * A transfer of 1..100 between two different random accounts among 1..hot_accounts (200, or
	 * 422 insufficient funds: both right answers), then the balance of a random account. The
	 * plan's pre-processors sit on the controller, so it runs before each of its two
	 * samplers: the balance read is of a freshly drawn `from`, not the transfer's.
	 */
	private ChainBuilder contention(String prefix) {
		return exec(this::pickHotAccounts)
			.exec(sample(prefix, TRANSACTION, http(TRANSACTION).post("/transaction")
				.body(StringBody("{\"from_client_id\":#{from},\"to_client_id\":#{to},\"amount\":#{amount}}")),
					status().in(200, 422)))
			.exec(this::pickHotAccounts)
			.exec(sample(prefix, BALANCE, http(BALANCE).get("/client/#{from}/balance")));
	}

	private Session pickHotAccounts(Session session) {
		int[] pick = hotPick(this.hotAccounts, ThreadLocalRandom.current());
		return session.set("from", pick[0]).set("to", pick[1]).set("amount", pick[2]);
	}

	/**
	 * The plan's "pick two hot accounts", draw for draw: `from` in 1..k, `to` another account in
	 * 1..k (each equally likely), `amount` in 1..100.
	 */
	static int[] hotPick(int k, ThreadLocalRandom random) {
		int from = random.nextInt(1, k + 1);
		int to = (from - 1 + random.nextInt(1, k)) % k + 1;
		return new int[] { from, to, random.nextInt(1, 101) };
	}

	// --- one sampled request ----------------------------------------------------------------------

	/** JMeter's success for an HTTP sampler without a response-code assertion: 2xx or 3xx. */
	private static CheckBuilder jmeterSuccess() {
		return status().transform(code -> code >= 200 && code <= 399).is(true).name("status 2xx or 3xx");
	}

	private ChainBuilder sample(String prefix, String label, HttpRequestActionBuilder request) {
		return sample(prefix, label, request, jmeterSuccess());
	}

	/**
	 * The plan's think time (its constant timer, before every sampler), then the request with
	 * `statusCheck` deciding which statuses count as success, then its row in the samples file;
	 * nothing once an earlier request of the iteration failed.
	 * The start is taken just before Gatling's request action, in the same event-loop task (Gatling
	 * takes its own start as it sends, microseconds later, also in whole ms); the elapsed time is
	 * Gatling's response time (its start to the last byte of the answer, connecting included, as
	 * JMeter's elapsed). A request with no answer has no response time: its elapsed is the
	 * time to the failure as seen after it.
	 */
	private ChainBuilder sample(String prefix, String label, HttpRequestActionBuilder request,
			CheckBuilder statusCheck) {
		ChainBuilder chain = exec(session -> session.markAsSucceeded()
			.removeAll(RT, STATUS)
			.set(T0, System.currentTimeMillis()));
		if (this.thinkMs > 0) {
			chain = pause(Duration.ofMillis(this.thinkMs)).exec(chain);
		}
		chain = chain.exec(request.check(statusCheck, status().saveAs(STATUS), responseTimeInMillis().saveAs(RT)))
			.exec(session -> {
				long start = session.getLong(T0);
				boolean answered = session.contains(RT) && session.contains(STATUS);
				if (answered) {
					this.samples.add(start, session.getInt(RT), label, session.getInt(STATUS), null, prefix,
							session.userId(), !session.isFailed());
				}
				else {
					this.samples.add(start, (int) (System.currentTimeMillis() - start), label, -1,
							this.noAnswer.responseCode(session.userId()), prefix, session.userId(), false);
				}
				return session.isFailed() ? session.set(STOPPED, true) : session;
			});
		return doIf(session -> !session.getBoolean(STOPPED)).then(chain);
	}

	// --- properties -------------------------------------------------------------------------------

	private static String text(String name, String fallback) {
		String value = System.getProperty(name);
		return value == null || value.isBlank() ? fallback : value.trim();
	}

	private static String required(String name) {
		String value = text(name, null);
		if (value == null) {
			throw new IllegalArgumentException("-D" + name + "=... is required (gatling/README.md)");
		}
		return value;
	}

	private static long whole(String name, long fallback, long min) {
		String value = text(name, null);
		long parsed;
		try {
			parsed = value == null ? fallback : Long.parseLong(value);
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException(name + "=" + value + ": a whole number is needed");
		}
		if (parsed < min) {
			throw new IllegalArgumentException(name + "=" + parsed + ": at least " + min);
		}
		return parsed;
	}

	private static double number(String name, double fallback) {
		String value = text(name, null);
		try {
			return value == null ? fallback : Double.parseDouble(value);
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException(name + "=" + value + ": a number is needed");
		}
	}

}
