package bankbench.system;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MetricsTest {

	@Test
	void thePoolsMetersTakeThePoolNeutralNames() {
		Meter.Id hikari = new Meter.Id("hikaricp.connections.active", Tags.of("pool", "bank"), null, null,
				Meter.Type.GAUGE);
		assertEquals("db.pool.connections.active", Metrics.poolMeterNames().map(hikari).getName());
		Meter.Id other = new Meter.Id("jvm.threads.live", Tags.empty(), null, null, Meter.Type.GAUGE);
		assertEquals(other, Metrics.poolMeterNames().map(other));
	}

	@Test
	void theJvmsMetersAreThoseOfTheJavaDialect() {
		String page = Metrics.registry().scrape();
		for (String series : new String[] { "jvm_memory_used_bytes{area=\"heap\"", "jvm_threads_live_threads",
				"jvm_compilation_time_ms_total" }) {
			assertTrue(page.contains(series), series);
		}
	}

	@Test
	void aRenamedMeterIsPublishedUnderItsNewName() {
		PrometheusMeterRegistry registry = Metrics.registry();
		registry.gauge("hikaricp.connections.max", Tags.of("pool", "bank"), 4);
		assertTrue(registry.scrape().contains("db_pool_connections_max{pool=\"bank\"} 4.0"));
	}

}
