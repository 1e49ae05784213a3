package bankbench.system;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The service's settings, read from the environment under the names and defaults every
 * bankbench service shares (docs/configuration.md; bank-go's config.go, bank-java's
 * application.yaml). An empty variable is unset, as in the Go service; an invalid value
 * stops the service at start-up: better not start than run a benchmark with settings
 * nobody chose.
 *
 * @param port the HTTP port ({@code PORT})
 * @param database where the pool connects, and how ({@code POSTGRES_*})
 * @param maxConcurrentRequests the admission limit ({@code MAX_CONCURRENT_REQUESTS})
 */
public record Settings(int port, Database database, int maxConcurrentRequests) {

	/**
	 * The pool's settings.
	 *
	 * @param host database host
	 * @param port database port
	 * @param name database name
	 * @param user user name
	 * @param password password
	 * @param poolSize connections, fixed: the minimum is the maximum
	 * @param acquireTimeout the longest wait for a pooled connection, then 503
	 */
	public record Database(String host, int port, String name, String user, String password, int poolSize,
			Duration acquireTimeout) {
	}

	/**
	 * Reads the settings from environment; throws {@link IllegalArgumentException} naming
	 * every invalid value.
	 */
	public static Settings from(Map<String, String> environment) {
		Reader env = new Reader(environment::get);
		Settings settings = new Settings(env.integer("PORT", 8080, 65535),
				new Database(env.text("POSTGRES_HOST", "localhost"), env.integer("POSTGRES_PORT", 5432, 65535),
						env.text("POSTGRES_NAME", "bank"), env.text("POSTGRES_USER", "postgres"),
						env.text("POSTGRES_PASSWORD", "postgres"),
						env.integer("POSTGRES_CONNECTIONS_SIZE", 95, Integer.MAX_VALUE),
						Duration.ofMillis(env.integer("POSTGRES_ACQUIRE_TIMEOUT_MS", 3000, Integer.MAX_VALUE))),
				env.integer("MAX_CONCURRENT_REQUESTS", 1000, Integer.MAX_VALUE));
		if (!env.errors.isEmpty()) {
			throw new IllegalArgumentException(String.join("; ", env.errors));
		}
		return settings;
	}

	/** Reads variables, collecting what is wrong with them. */
	private static final class Reader {

		private final Function<String, String> getenv;

		private final List<String> errors = new ArrayList<>();

		private Reader(Function<String, String> getenv) {
			this.getenv = getenv;
		}

		String text(String name, String fallback) {
			String value = this.getenv.apply(name);
			return (value == null || value.isEmpty()) ? fallback : value;
		}

		/** A whole number from 1 to max. */
		int integer(String name, int fallback, int max) {
			String value = text(name, null);
			if (value == null) {
				return fallback;
			}
			try {
				int number = Integer.parseInt(value);
				if (number >= 1 && number <= max) {
					return number;
				}
			}
			catch (NumberFormatException ex) {
				// Reported below with the name and the range.
			}
			this.errors.add(name + "=\"" + value + "\": want an integer from 1 to " + max);
			return fallback;
		}

	}

}
