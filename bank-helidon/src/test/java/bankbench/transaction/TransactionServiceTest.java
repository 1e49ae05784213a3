package bankbench.transaction;

import java.io.IOException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import bankbench.support.WithoutDatabase;

import static bankbench.support.Answers.assertError;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The checks of a transfer's body, in the contract's order, before any database call. */
class TransactionServiceTest extends WithoutDatabase {

	@ParameterizedTest
	@CsvSource(delimiter = '|', quoteCharacter = '`', value = { "``|request body must be a JSON object",
			"{|request body must be a JSON object", "[]|request body must be a JSON object",
			"null|request body must be a JSON object",
			"`{\"from_client_id\":1,\"to_client_id\":2,\"amount\":3} x`|request body must be a JSON object",
			"{}|from_client_id must be an integer",
			"`{\"from_client_id\":1.0,\"to_client_id\":2,\"amount\":3}`|from_client_id must be an integer",
			"`{\"from_client_id\":\"1\",\"to_client_id\":2,\"amount\":3}`|from_client_id must be an integer",
			"`{\"from_client_id\":1,\"to_client_id\":2e0,\"amount\":3}`|to_client_id must be an integer",
			"`{\"from_client_id\":1,\"to_client_id\":2,\"amount\":9223372036854775808}`|amount must be an integer",
			"`{\"from_client_id\":1,\"to_client_id\":2,\"amount\":0}`|amount must be from 1 to 1000000000000000",
			"`{\"from_client_id\":7,\"to_client_id\":7,\"amount\":1}`|from_client_id and to_client_id must differ",
			"`{\"amount\":0,\"from_client_id\":\"x\"}`|from_client_id must be an integer" })
	void aBodyFailsItsFirstCheck(String body, String message) {
		assertError(400, message, service.send("POST", "/transaction", body));
	}

	@Test
	void aValidTransferReachesTheDatabase() {
		assertError(503, "database unavailable",
				service.send("POST", "/transaction", "{\"from_client_id\":1,\"to_client_id\":2,\"amount\":3}"));
	}

	@Test
	void aBodyOfAnotherTypeIsRefusedUnread() throws IOException {
		String answer = service
			.raw("POST /transaction HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\n" + "Content-Length: 2\r\n\r\n{}");
		assertTrue(answer.startsWith("HTTP/1.1 415 ")
				&& answer.endsWith("{\"status\":\"Error\",\"message\":\"Content-Type must be application/json\"}"),
				answer);
	}

	@Test
	void aBodyOverTheLimitIsRefusedFromItsLengthAndTheConnectionClosed() throws IOException {
		// raw returns when the server closes the connection: it does not wait for the 10
		// MB.
		String answer = service.raw("POST /transaction HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
				+ "Content-Length: 10485760\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n");
		assertTrue(
				answer.startsWith("HTTP/1.1 413 ") && answer.contains("Connection: close")
						&& answer.endsWith(
								"{\"status\":\"Error\",\"message\":\"request body must be at most 65536 bytes\"}"),
				answer);
	}

}
