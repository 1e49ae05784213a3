package bankbench.system;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;

import javax.sql.DataSource;

import io.helidon.http.Header;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import bankbench.web.ApiErrors;
import bankbench.web.Json;
import bankbench.web.Responses;
import bankbench.web.Routes;

/**
 * {@code GET /} (liveness), {@code GET /health} (readiness: the database answers) and
 * {@code GET /metrics}.
 */
public final class SystemService implements HttpService {

	/**
	 * Prometheus' text format 0.0.4, whatever the Accept header asks for, as the other
	 * services answer.
	 */
	private static final Header PROMETHEUS_TEXT = HeaderValues.create("Content-Type",
			"text/plain;version=0.0.4;charset=utf-8");

	private static final StatusBody OK = new StatusBody("Ok");

	private final DatabaseHealth database;

	private final PrometheusMeterRegistry registry;

	public SystemService(DataSource dataSource, PrometheusMeterRegistry registry) {
		this.database = new DatabaseHealth(dataSource);
		this.registry = registry;
	}

	@Override
	public void routing(HttpRules rules) {
		rules.route(Routes.get("/", (req, res) -> Json.send(req, res, OK)))
			.route(Routes.get("/health", this::health))
			.route(Routes.get("/metrics", this::metrics));
	}

	private void health(ServerRequest req, ServerResponse res) {
		try {
			this.database.check();
		}
		catch (SQLException ex) {
			// Any failure means not ready: the contract allows only 200 or 503 here.
			ApiErrors.send(req, res, Status.SERVICE_UNAVAILABLE_503);
			return;
		}
		Json.send(req, res, OK);
	}

	private void metrics(ServerRequest req, ServerResponse res) {
		Responses.send(req, res, PROMETHEUS_TEXT, this.registry.scrape().getBytes(StandardCharsets.UTF_8));
	}

	/** The body of a successful liveness or readiness check: {@code {"status":"Ok"}}. */
	record StatusBody(String status) {
	}

}
