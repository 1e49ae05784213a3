package bankbench.system;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The HikariCP pool, set as bank-java's {@code application.yaml} sets Spring Boot's: the
 * same JDBC URL, a fixed size, the same timeouts, and HikariCP's Micrometer meters.
 */
public final class Pool {

	/** Connections live 30 min at most (docs/configuration.md). */
	private static final long MAX_LIFETIME_MS = 30 * 60 * 1000;

	private Pool() {
	}

	/** Returns the pool; it opens its connections in the background. */
	public static HikariDataSource open(Settings.Database settings, MeterRegistry registry) {
		HikariConfig config = new HikariConfig();
		config.setPoolName("bank");
		// connectTimeout and socketTimeout are in seconds: a database call that takes
		// longer
		// than 10 s is abandoned (503), as the Go service's query timeout does.
		// assumeMinServerVersion puts application_name in the start-up packet instead of
		// a SET
		// statement after it: a new connection costs no extra round trip.
		config.setJdbcUrl("jdbc:postgresql://" + settings.host() + ":" + settings.port() + "/" + settings.name()
				+ "?connectTimeout=3&socketTimeout=10&assumeMinServerVersion=15");
		config.setUsername(settings.user());
		config.setPassword(settings.password());
		// A fixed-size pool (HikariCP's default, written out because results depend on
		// it).
		config.setMaximumPoolSize(settings.poolSize());
		config.setMinimumIdle(settings.poolSize());
		config.setConnectionTimeout(settings.acquireTimeout().toMillis());
		config.setMaxLifetime(MAX_LIFETIME_MS);
		// Start without the database; requests answer 503 until it is up.
		config.setInitializationFailTimeout(-1);
		config.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(registry));
		return new HikariDataSource(config);
	}

}
