package bankbench.system;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.binder.jvm.JvmCompilationMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The Micrometer registry that {@code GET /metrics} publishes, with what Spring Boot's
 * actuator gives bank-java and api/metrics.yaml's {@code java} dialect names: the JVM's
 * memory, collections, threads and JIT, HikariCP's meters (registered by {@link Pool})
 * and the request timer and admission gauges of the web layer.
 */
public final class Metrics {

	private static final String HIKARI_PREFIX = "hikaricp.";

	private Metrics() {
	}

	/** Returns a registry with the JVM's meters bound, and the pool's names mapped. */
	@SuppressWarnings("resource") // the GC meters listen for as long as the JVM runs
	public static PrometheusMeterRegistry registry() {
		PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
		registry.config().meterFilter(poolMeterNames());
		new JvmMemoryMetrics().bindTo(registry);
		new JvmGcMetrics().bindTo(registry);
		new JvmThreadMetrics().bindTo(registry);
		new JvmCompilationMetrics().bindTo(registry);
		return registry;
	}

	/**
	 * HikariCP's meters under the pool-neutral names every service publishes:
	 * {@code hikaricp.*} becomes {@code db.pool.*}, which Prometheus spells
	 * {@code db_pool_*}.
	 */
	static MeterFilter poolMeterNames() {
		return new MeterFilter() {

			@Override
			public Meter.Id map(Meter.Id id) {
				return id.getName().startsWith(HIKARI_PREFIX)
						? id.withName("db.pool." + id.getName().substring(HIKARI_PREFIX.length())) : id;
			}

		};
	}

}
