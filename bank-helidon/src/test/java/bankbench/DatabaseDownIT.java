package bankbench;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import bankbench.system.Settings;

import static bankbench.support.Answers.assertError;
import static bankbench.support.Answers.assertJson;

/**
 * The service with its database down (nothing listens on its port): it starts, stays live
 * and answers 503 to everything that needs the database, through the real driver and
 * pool.
 */
class DatabaseDownIT {

	private static final String UNAVAILABLE = "database unavailable";

	private static TestService service;

	@BeforeAll
	static void start() throws IOException {
		int closedPort;
		try (ServerSocket socket = new ServerSocket(0)) {
			closedPort = socket.getLocalPort();
		}
		service = TestService.on(new Settings.Database("127.0.0.1", closedPort, "bank", "postgres", "postgres", 2,
				Duration.ofMillis(250)));
	}

	@AfterAll
	static void stop() {
		service.close();
	}

	@Test
	void staysLiveAndAnswersUnavailable() {
		assertJson(200, "{\"status\":\"Ok\"}", service.get("/"));
		assertError(503, UNAVAILABLE, service.get("/health"));
		assertError(503, UNAVAILABLE, service.send("POST", "/client/new/5", null));
		assertError(503, UNAVAILABLE, service.get("/client/1/balance"));
		assertError(503, UNAVAILABLE,
				service.send("POST", "/transaction", "{\"from_client_id\":1,\"to_client_id\":2,\"amount\":3}"));
	}

}
