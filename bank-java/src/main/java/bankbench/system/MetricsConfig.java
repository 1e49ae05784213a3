package bankbench.system;

import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.server.observation.DefaultServerRequestObservationConvention;
import org.springframework.http.server.observation.ServerHttpObservationDocumentation.LowCardinalityKeyNames;
import org.springframework.http.server.observation.ServerRequestObservationContext;
import org.springframework.http.server.observation.ServerRequestObservationConvention;
import org.springframework.web.util.DisconnectedClientHelper;

/** Meter names shared with the Go service (api/metrics.md). */
@Configuration(proxyBeanMethods = false)
class MetricsConfig {

	private static final String HIKARI_PREFIX = "hikaricp.";

	/**
	 * The status of a request whose client went away before its answer: nginx's 499, as
	 * the Go service counts it (api/metrics.md).
	 */
	static final String CLIENT_GONE = "499";

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

	/**
	 * The request metrics count a request whose answer could not be written because its
	 * client had gone (it reset the connection; Spring's {@link DisconnectedClientHelper}
	 * tells) under status 499, as the Go service does, not under the status nobody read.
	 * A client that closed its connection normally while its request waited is not seen:
	 * Tomcat does not watch a connection whose request is being served, and the kernel
	 * takes the answer all the same.
	 */
	@Bean
	ServerRequestObservationConvention clientGoneIs499() {
		return new DefaultServerRequestObservationConvention() {

			@Override
			protected KeyValue status(ServerRequestObservationContext context) {
				return clientGone(context) ? KeyValue.of(LowCardinalityKeyNames.STATUS, CLIENT_GONE)
						: super.status(context);
			}

			@Override
			protected KeyValue outcome(ServerRequestObservationContext context) {
				return clientGone(context) ? KeyValue.of(LowCardinalityKeyNames.OUTCOME, "CLIENT_ERROR")
						: super.outcome(context);
			}

			private boolean clientGone(ServerRequestObservationContext context) {
				return context.getError() != null
						&& DisconnectedClientHelper.isClientDisconnectedException(context.getError());
			}

		};
	}

}
