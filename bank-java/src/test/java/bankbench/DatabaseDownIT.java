package bankbench;

import java.io.IOException;
import java.net.ServerSocket;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;
import org.springframework.test.web.servlet.client.RestTestClient.ResponseSpec;

/**
 * The service with its database down (nothing listens on its port): it starts, stays live
 * and answers 503 to everything that needs the database, through the real driver and
 * pool.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "POSTGRES_HOST=127.0.0.1", "POSTGRES_ACQUIRE_TIMEOUT_MS=250" })
@AutoConfigureRestTestClient
class DatabaseDownIT {

	private static final String UNAVAILABLE = "{\"status\":\"Error\",\"message\":\"database unavailable\"}";

	@Autowired
	private RestTestClient http;

	@DynamicPropertySource
	static void closedPort(DynamicPropertyRegistry registry) throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			registry.add("POSTGRES_PORT", socket::getLocalPort);
		}
	}

	@Test
	void staysLive() {
		this.http.get().uri("/").exchange().expectStatus().isOk();
	}

	@Test
	void answersUnavailable() {
		assertUnavailable(this.http.get().uri("/health").exchange());
		assertUnavailable(this.http.post().uri("/client/new/5").exchange());
		assertUnavailable(this.http.get().uri("/client/1/balance").exchange());
		assertUnavailable(this.http.post()
			.uri("/transaction")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"from_client_id\":1,\"to_client_id\":2,\"amount\":3}")
			.exchange());
	}

	private static void assertUnavailable(ResponseSpec response) {
		response.expectStatus()
			.isEqualTo(503)
			.expectHeader()
			.valueEquals("Content-Type", "application/json")
			.expectBody()
			.json(UNAVAILABLE);
	}

}
