package bankbench;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.sql.SQLException;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.helidon.logging.common.LogConfig;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import bankbench.client.ClientService;
import bankbench.system.DatabaseHealth;
import bankbench.system.Metrics;
import bankbench.system.Pool;
import bankbench.system.Settings;
import bankbench.system.SystemService;
import bankbench.transaction.TransactionService;
import bankbench.web.AdmissionFilter;
import bankbench.web.RequestMetrics;
import bankbench.web.Routes;
import bankbench.web.Server;

/**
 * The Helidon SE bank service of bankbench, the twin of bank-go and bank-java, serving
 * api/openapi.yaml: the settings, the pool, the metrics registry and the routing, wired
 * by hand.
 */
public final class BankApplication {

	private static final Logger log = System.getLogger(BankApplication.class.getName());

	private BankApplication() {
	}

	public static void main(String[] args) {
		LogConfig.configureRuntime();
		Settings settings;
		try {
			settings = Settings.from(System.getenv());
		}
		catch (IllegalArgumentException ex) {
			System.err.println("bank-helidon: " + ex.getMessage());
			System.exit(1);
			return;
		}
		PrometheusMeterRegistry registry = Metrics.registry();
		HikariDataSource pool = Pool.open(settings.database(), registry);
		WebServer server = Server.start(settings.port(),
				(routing) -> routing(routing, pool, registry, settings.maxConcurrentRequests()));
		// SIGTERM: requests in flight finish (Server's grace period), then the pool
		// closes.
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			server.stop();
			pool.close();
		}));
		logStart(settings, new DatabaseHealth(pool));
	}

	/**
	 * Every route of the service and its filters: the request timer outside the admission
	 * limit, so that a refused request is counted.
	 */
	static void routing(HttpRouting.Builder routing, DataSource pool, PrometheusMeterRegistry registry,
			int maxConcurrentRequests) {
		routing.addFilter(new RequestMetrics(registry)).addFilter(new AdmissionFilter(maxConcurrentRequests, registry));
		Routes.register(routing, new SystemService(pool, registry), new ClientService(pool),
				new TransactionService(pool));
	}

	/**
	 * Logs, once the service listens, what a benchmark result depends on (the JDK, the
	 * pool size, the admission limit), and warns when the database does not answer yet.
	 * The probe also waits for the pool's first connection, so that the first request
	 * does not pay for it.
	 */
	private static void logStart(Settings settings, DatabaseHealth database) {
		log.log(Level.INFO, "Java {0}, virtual threads on, pool of {1} connections, at most {2} requests at once",
				Runtime.version(), Integer.toString(settings.database().poolSize()),
				Integer.toString(settings.maxConcurrentRequests()));
		try {
			database.check();
		}
		catch (SQLException ex) {
			log.log(Level.WARNING, "Database unavailable, answering 503 until it is up: {0}", ex.toString());
		}
	}

}
