package bankbench.support;

import java.net.http.HttpResponse;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Assertions on the service's answers, byte for byte as the contract states them. */
public final class Answers {

	private Answers() {
	}

	/** Asserts status and a JSON body exactly. */
	public static void assertJson(int status, String body, HttpResponse<String> response) {
		assertEquals(status + " application/json " + body, response.statusCode() + " "
				+ response.headers().firstValue("Content-Type").orElse("") + " " + response.body());
	}

	/** Asserts the contract's error answer. */
	public static void assertError(int status, String message, HttpResponse<String> response) {
		assertJson(status, "{\"status\":\"Error\",\"message\":\"" + message + "\"}", response);
	}

}
