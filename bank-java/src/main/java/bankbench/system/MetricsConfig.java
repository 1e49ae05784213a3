package bankbench.system;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Meter names shared with the Go service (api/metrics.md). */
@Configuration(proxyBeanMethods = false)
class MetricsConfig {

	private static final String HIKARI_PREFIX = "hikaricp.";

	/**
	 * HikariCP's meters under the pool-neutral names both services publish:
	 * {@code hikaricp.*} becomes {@code db.pool.*}, which Prometheus spells
	 * {@code db_pool_*}.
	 */
	@Bean
	MeterFilter poolMeterNames() {
		return new MeterFilter() {

			@Override
			public Meter.Id map(Meter.Id id) {
				return id.getName().startsWith(HIKARI_PREFIX)
						? id.withName("db.pool." + id.getName().substring(HIKARI_PREFIX.length())) : id;
			}

		};
	}

}
