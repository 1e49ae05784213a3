package bankbench.web;

import java.time.Duration;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import org.junit.jupiter.api.Test;

import bankbench.TestService;
import bankbench.support.Pools;

import static bankbench.support.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class RequestMetricsTest {

	@Test
	void aRequestCountsOnceUnderItsRoutePatternOrWhatNoRouteServed() throws Throwable {
		try (TestService service = TestService.start(Pools.down())) {
			service.get("/client/1/balance");
			service.get("/client/x/balance");
			service.get("/no/such/path");
			service.send("DELETE", "/transaction", null);
			service.send("HEAD", "/", null);
			eventually(() -> {
				assertEquals(1, requests(service, "GET", "/client/{id}/balance", "503").count());
				assertEquals(1, requests(service, "GET", "/client/{id}/balance", "400").count());
				assertEquals(1, requests(service, "GET", "NOT_FOUND", "404").count());
				assertEquals(1, requests(service, "DELETE", "UNKNOWN", "405").count());
				assertEquals(1, requests(service, "HEAD", "/", "200").count());
			});
		}
	}

	@Test
	void theBucketsAreThoseOfTheOtherServices() throws Throwable {
		try (TestService service = TestService.start(Pools.down())) {
			service.get("/");
			double[] bounds = { 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10 };
			eventually(() -> requests(service, "GET", "/", "200"));
			CountAtBucket[] buckets = requests(service, "GET", "/", "200").takeSnapshot().histogramCounts();
			double[] seconds = new double[buckets.length];
			for (int i = 0; i < buckets.length; i++) {
				seconds[i] = Duration.ofNanos((long) buckets[i].bucket()).toNanos() / 1e9;
			}
			assertArrayEquals(bounds, seconds, 1e-9);
		}
	}

	private static Timer requests(TestService service, String method, String uri, String status) {
		return service.registry()
			.get("http.server.requests")
			.tags("method", method, "uri", uri, "status", status)
			.timer();
	}

}
