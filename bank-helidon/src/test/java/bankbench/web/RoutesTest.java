package bankbench.web;

import java.io.IOException;
import java.sql.SQLException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import bankbench.TestService;
import bankbench.support.Pools;
import bankbench.support.WithoutDatabase;

import static bankbench.support.Answers.assertError;
import static bankbench.support.Answers.assertJson;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the routing answers around the handlers: liveness and readiness, {@code HEAD}, a
 * path or method no route serves, what Helidon refuses itself, and failures of the
 * database.
 */
class RoutesTest extends WithoutDatabase {

	@Test
	void livenessNeedsNoDatabaseAndHealthDoes() {
		assertJson(200, "{\"status\":\"Ok\"}", service.get("/"));
		assertError(503, "database unavailable", service.get("/health"));
	}

	@ParameterizedTest
	@CsvSource({ "GET,/nope", "GET,/client", "GET,/client/1/balance/", "POST,/client/new",
			"GET,/client/1/balance/extra" })
	void aPathNoRouteServesIsNotFound(String method, String path) {
		assertError(404, "not found", service.send(method, path, null));
	}

	@ParameterizedTest
	@CsvSource({ "GET,/transaction,POST", "PUT,/transaction,POST", "DELETE,/client/1/balance,'GET, HEAD'",
			"GET,/client/new/5,POST", "POST,/health,'GET, HEAD'", "OPTIONS,/,'GET, HEAD'",
			"OPTIONS,/metrics,'GET, HEAD'" })
	void aMethodThePathIsNotServedWithIsNotAllowed(String method, String path, String allowed) {
		var response = service.send(method, path, null);
		assertError(405, "method not allowed", response);
		assertEquals(allowed, response.headers().firstValue("Allow").orElseThrow());
	}

	@Test
	void headIsGetWithoutItsBody() throws IOException {
		String answers = service.raw("HEAD / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n");
		String head = answers.substring(0, answers.indexOf("HTTP/1.1 200", 1));
		assertTrue(head.startsWith("HTTP/1.1 200") && head.contains("Content-Length: 15") && head.endsWith("\r\n\r\n"),
				answers);
		assertTrue(answers.endsWith("\r\n\r\n{\"status\":\"Ok\"}"), answers);
	}

	@ParameterizedTest
	@ValueSource(strings = { "/client/%zz/balance", "/client/%/balance", "/%C0%" })
	void aPathThatIsNotValidPercentEncodingIsAMalformedRequest(String target) throws IOException {
		String answer = service.raw("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n");
		assertTrue(answer.startsWith("HTTP/1.1 400 ") && answer.contains("Content-Type: application/json")
				&& answer.endsWith("{\"status\":\"Error\",\"message\":\"malformed request\"}"), answer);
	}

	@Test
	void aDatabaseFailureThatIsNoOutageIsAnInternalError() {
		try (TestService broken = TestService.start(Pools.failing(new SQLException("violated", "23514")))) {
			assertError(500, "internal error", broken.get("/client/1/balance"));
		}
	}

}
