package bankbench.support;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Points the application of an integration test at a real PostgreSQL, by the convention
 * of every bankbench suite: POSTGRES_* from the environment when POSTGRES_HOST is set (as
 * {@code make test} does); else, when a Docker engine answers, a container of bankbench's
 * PostgreSQL image (infra/docker/postgres, schema included), started through
 * Testcontainers; else the test fails, saying how to get a database. It says on standard
 * output which it took.
 */
public class TestDatabase implements ApplicationContextInitializer<ConfigurableApplicationContext> {

	private static final String NO_DATABASE = "no database: run `make db-up` and export its settings, or install Docker";

	/**
	 * bankbench's PostgreSQL image, as docker-compose.yml names it: built by
	 * {@code make images}.
	 */
	private static final String DEFAULT_IMAGE = "bankbench/postgres";

	private static PostgreSQLContainer container;

	@Override
	public void initialize(ConfigurableApplicationContext context) {
		if (System.getenv("POSTGRES_HOST") != null) {
			// application.yaml reads POSTGRES_* from the environment itself
			System.out.println("TestDatabase: PostgreSQL of POSTGRES_HOST at " + System.getenv("POSTGRES_HOST"));
			return;
		}
		if (!DockerClientFactory.instance().isDockerAvailable()) {
			throw new IllegalStateException(NO_DATABASE);
		}
		PostgreSQLContainer postgres = container();
		// The same settings as the environment's, so that application.yaml builds the
		// URL.
		TestPropertyValues
			.of("POSTGRES_HOST=" + postgres.getHost(),
					"POSTGRES_PORT=" + postgres.getMappedPort(PostgreSQLContainer.POSTGRESQL_PORT),
					"POSTGRES_NAME=" + postgres.getDatabaseName(), "POSTGRES_USER=" + postgres.getUsername(),
					"POSTGRES_PASSWORD=" + postgres.getPassword())
			.applyTo(context);
	}

	/**
	 * Starts the container once for all the tests of the JVM; Testcontainers removes it
	 * at exit. The image's own health check passes once the real server answers over TCP
	 * (its set-up server, which loads the schema, listens on none).
	 */
	private static synchronized PostgreSQLContainer container() {
		if (container == null) {
			String image = System.getenv().getOrDefault("BANKBENCH_POSTGRES_IMAGE", DEFAULT_IMAGE);
			container = new PostgreSQLContainer(DockerImageName.parse(image).asCompatibleSubstituteFor("postgres"))
				.waitingFor(Wait.forHealthcheck());
			container.start();
			System.out.println("TestDatabase: PostgreSQL in a container of " + image + " (Testcontainers) at "
					+ container.getHost() + ":" + container.getMappedPort(PostgreSQLContainer.POSTGRESQL_PORT));
		}
		return container;
	}

}
