package bankbench.system;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SettingsTest {

	@Test
	void theDefaultsAreThoseOfEveryService() {
		assertEquals(new Settings(8080,
				new Settings.Database("localhost", 5432, "bank", "postgres", "postgres", 95, Duration.ofMillis(3000)),
				1000), Settings.from(Map.of()));
	}

	@Test
	void theEnvironmentSetsEachAndAnEmptyValueIsUnset() {
		Settings settings = Settings.from(Map.of("PORT", "9000", "POSTGRES_HOST", "db", "POSTGRES_PORT", "6543",
				"POSTGRES_NAME", "", "POSTGRES_CONNECTIONS_SIZE", "8", "POSTGRES_ACQUIRE_TIMEOUT_MS", "1500",
				"MAX_CONCURRENT_REQUESTS", "50"));
		assertEquals(new Settings(9000,
				new Settings.Database("db", 6543, "bank", "postgres", "postgres", 8, Duration.ofMillis(1500)), 50),
				settings);
	}

	@Test
	void everyInvalidValueIsNamed() {
		IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> Settings
			.from(Map.of("PORT", "70000", "POSTGRES_CONNECTIONS_SIZE", "0", "MAX_CONCURRENT_REQUESTS", "many")));
		for (String name : new String[] { "PORT=\"70000\"", "POSTGRES_CONNECTIONS_SIZE=\"0\"",
				"MAX_CONCURRENT_REQUESTS=\"many\"" }) {
			assertTrue(error.getMessage().contains(name), error.getMessage());
		}
	}

}
