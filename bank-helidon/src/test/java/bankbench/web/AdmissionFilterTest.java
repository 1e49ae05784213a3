package bankbench.web;

import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import bankbench.TestService;
import bankbench.support.Pools;

import static bankbench.support.Answers.assertError;
import static bankbench.support.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;

class AdmissionFilterTest {

	@Test
	void pastTheLimitARequestIsRefusedAtOnceButLivenessAndMetricsAreNot() throws Throwable {
		CountDownLatch released = new CountDownLatch(1);
		try (TestService service = TestService.start(Pools.held(released), 1)) {
			CompletableFuture<HttpResponse<String>> holding = CompletableFuture
				.supplyAsync(() -> service.get("/client/1/balance"));
			while (gauge(service, "http.server.requests.concurrent") < 1) {
				Thread.sleep(10);
			}
			HttpResponse<String> refused = service.send("POST", "/client/new/5", null);
			assertError(503, "service overloaded", refused);
			assertEquals("1", refused.headers().firstValue("Retry-After").orElseThrow());
			assertEquals(200, service.get("/").statusCode());
			assertEquals(200, service.get("/metrics").statusCode());
			assertEquals(1, gauge(service, "http.server.requests.concurrent.max"));
			released.countDown();
			assertError(503, "database unavailable", holding.get());
			eventually(() -> assertEquals(0, gauge(service, "http.server.requests.concurrent")));
			eventually(() -> assertEquals(1,
					service.registry()
						.get("http.server.requests")
						.tags("uri", "UNKNOWN", "status", "503")
						.timer()
						.count()));
		}
	}

	private static double gauge(TestService service, String name) {
		return service.registry().get(name).gauge().value();
	}

}
