package bankbench.support;

import org.springframework.test.web.servlet.assertj.MvcTestResult;

import static org.assertj.core.api.Assertions.assertThat;

/** Assertions on responses of the web layer, in the contract's exact terms. */
public final class ApiAssertions {

	private ApiAssertions() {
	}

	/** The body of an error response with message, byte for byte. */
	public static String errorBody(String message) {
		return "{\"status\":\"Error\",\"message\":\"" + message + "\"}";
	}

	/** Asserts a successful JSON response with body, byte for byte. */
	public static void assertOk(MvcTestResult result, String body) {
		assertJson(result, 200, body);
	}

	/** Asserts an error response with status and message. */
	public static void assertError(MvcTestResult result, int status, String message) {
		assertJson(result, status, errorBody(message));
	}

	private static void assertJson(MvcTestResult result, int status, String body) {
		assertThat(result).hasStatus(status).hasHeader("Content-Type", "application/json").hasBodyTextEqualTo(body);
	}

}
