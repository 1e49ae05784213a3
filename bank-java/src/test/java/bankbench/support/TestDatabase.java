package bankbench.support;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Points the application of an integration test at a real PostgreSQL, by the convention of
 * every bankbench suite: POSTGRES_* from the environment when POSTGRES_HOST is set (as
 * {@code make test} does); else a PostgreSQL 15 container with {@code db/schema.sql} when a
 * Docker engine answers; else the test fails, saying how to get a database.
 */
public class TestDatabase implements ApplicationContextInitializer<ConfigurableApplicationContext> {

	private static final String NO_DATABASE = "no database: run `make db-up` and export its settings, or install Docker";

	private static PostgreSQLContainer container;

	@Override
	public void initialize(ConfigurableApplicationContext context) {
		if (System.getenv("POSTGRES_HOST") != null) {
			return; // application.yaml reads POSTGRES_* from the environment itself
		}
		if (!DockerClientFactory.instance().isDockerAvailable()) {
			throw new IllegalStateException(NO_DATABASE);
		}
		PostgreSQLContainer postgres = container();
		// The same settings as the environment's, so that application.yaml builds the URL.
		TestPropertyValues
			.of("POSTGRES_HOST=" + postgres.getHost(),
					"POSTGRES_PORT=" + postgres.getMappedPort(PostgreSQLContainer.POSTGRESQL_PORT),
					"POSTGRES_NAME=" + postgres.getDatabaseName(), "POSTGRES_USER=" + postgres.getUsername(),
					"POSTGRES_PASSWORD=" + postgres.getPassword())
			.applyTo(context);
	}

	/** Starts the container once for all the tests of the JVM; Testcontainers removes it at exit. */
	private static synchronized PostgreSQLContainer container() {
		if (container == null) {
			container = new PostgreSQLContainer("postgres:15-alpine").withInitScript("db/schema.sql");
			container.start();
		}
		return container;
	}

}
