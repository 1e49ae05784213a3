package bankbench.web;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /metrics}: every meter in the Prometheus text format 0.0.4, whatever the
 * Accept header asks for, as the Go service answers (api/metrics.md lists the series).
 * The actuator's own endpoint would negotiate OpenMetrics, and refuse other Accept values
 * with a 406 the contract does not have.
 */
@RestController
class MetricsController {

	private static final MediaType PROMETHEUS_TEXT = MediaType.parseMediaType("text/plain;version=0.0.4;charset=utf-8");

	private final PrometheusMeterRegistry registry;

	MetricsController(PrometheusMeterRegistry registry) {
		this.registry = registry;
	}

	@GetMapping("/metrics")
	ResponseEntity<String> metrics() {
		return ResponseEntity.ok().contentType(PROMETHEUS_TEXT).body(this.registry.scrape());
	}

}
