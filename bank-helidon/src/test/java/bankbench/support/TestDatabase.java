package bankbench.support;

import java.time.Duration;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

import bankbench.system.Settings;

/**
 * A real PostgreSQL for the integration tests, by the convention of every bankbench
 * suite: POSTGRES_* from the environment when POSTGRES_HOST is set (as {@code make test}
 * does); else, when a Docker engine answers, a container of bankbench's PostgreSQL image
 * (infra/docker/postgres, schema included), started through Testcontainers; else the test
 * fails, saying how to get a database. It says on standard output which it took.
 */
public final class TestDatabase {

	private static final String NO_DATABASE = "no database: run `make db-up` and export its settings, or install Docker";

	/**
	 * bankbench's PostgreSQL image, as docker-compose.yml names it: built by
	 * {@code make images}.
	 */
	private static final String DEFAULT_IMAGE = "bankbench/postgres";

	/** A small pool: other suites may share the database and its 100 connections. */
	private static final int POOL_SIZE = 8;

	private static Settings.Database settings;

	private TestDatabase() {
	}

	/** The database's settings, the same for all the tests of the JVM. */
	public static synchronized Settings.Database settings() {
		if (settings == null) {
			settings = (System.getenv("POSTGRES_HOST") != null) ? fromEnvironment() : inContainer();
		}
		return settings;
	}

	private static Settings.Database fromEnvironment() {
		System.out.println("TestDatabase: PostgreSQL of POSTGRES_HOST at " + System.getenv("POSTGRES_HOST"));
		Settings.Database environment = Settings.from(System.getenv()).database();
		return new Settings.Database(environment.host(), environment.port(), environment.name(), environment.user(),
				environment.password(), POOL_SIZE, environment.acquireTimeout());
	}

	/**
	 * Starts a container for all the tests of the JVM; Testcontainers removes it at exit.
	 * The image's own health check passes once the real server answers over TCP (its
	 * set-up server, which loads the schema, listens on none).
	 */
	private static Settings.Database inContainer() {
		if (!DockerClientFactory.instance().isDockerAvailable()) {
			throw new IllegalStateException(NO_DATABASE);
		}
		String image = System.getenv().getOrDefault("BANKBENCH_POSTGRES_IMAGE", DEFAULT_IMAGE);
		PostgreSQLContainer postgres = new PostgreSQLContainer(
				DockerImageName.parse(image).asCompatibleSubstituteFor("postgres"))
			.waitingFor(Wait.forHealthcheck());
		postgres.start();
		int port = postgres.getMappedPort(PostgreSQLContainer.POSTGRESQL_PORT);
		System.out.println("TestDatabase: PostgreSQL in a container of " + image + " (Testcontainers) at "
				+ postgres.getHost() + ":" + port);
		return new Settings.Database(postgres.getHost(), port, postgres.getDatabaseName(), postgres.getUsername(),
				postgres.getPassword(), POOL_SIZE, Duration.ofMillis(3000));
	}

}
