package bankbench.web;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static bankbench.support.ApiAssertions.errorBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The admission limit: a request past it is refused at once; liveness and metrics are
 * never counted. A request is held while the chain runs, so a chain that sends further
 * requests through the filter sees them as the service would while it is held.
 */
class AdmissionFilterTest {

	private final AdmissionFilter filter = new AdmissionFilter(1, () -> 0);

	private final MeterRegistry registry = new SimpleMeterRegistry();

	@Test
	void refusesARequestPastTheLimitAtOnce() throws Exception {
		this.filter.bindTo(this.registry);
		List<MockHttpServletResponse> whileHeld = new ArrayList<>();
		List<Double> gauges = new ArrayList<>();
		MockHttpServletResponse first = send("/client/1/balance", (request, response) -> {
			for (String path : List.of("/client/2/balance", "/transaction", "/", "/metrics")) {
				whileHeld.add(send(path, (req, res) -> ((MockHttpServletResponse) res).setStatus(200)));
			}
			gauges.add(gauge("http.server.requests.concurrent"));
		});

		assertThat(first.getStatus()).isEqualTo(200);
		for (MockHttpServletResponse refused : whileHeld.subList(0, 2)) {
			assertThat(refused.getStatus()).isEqualTo(503);
			assertThat(refused.getContentType()).isEqualTo("application/json");
			assertThat(refused.getContentAsString()).isEqualTo(errorBody("service overloaded"));
			assertThat(refused.getHeader("Retry-After")).isEqualTo("1");
		}
		assertThat(whileHeld.subList(2, 4)).extracting(MockHttpServletResponse::getStatus).containsOnly(200);
		assertThat(gauges).containsExactly(1.0);
		assertThat(gauge("http.server.requests.concurrent")).isZero();
		assertThat(gauge("http.server.requests.concurrent.max")).isEqualTo(1.0);
		assertThat(send("/client/1/balance", (req, res) -> ((MockHttpServletResponse) res).setStatus(200)).getStatus())
			.as("once the held request is answered")
			.isEqualTo(200);
	}

	@Test
	void countsTheRequestsQueuedForAThreadAsHeld() throws Exception {
		int[] queued = { 2 };
		AdmissionFilter queuedBehind = new AdmissionFilter(3, () -> queued[0]);
		List<Integer> whileHeld = new ArrayList<>();
		MockHttpServletResponse first = new MockHttpServletResponse();
		queuedBehind.doFilter(new MockHttpServletRequest("GET", "/client/1/balance"), first, (request, response) -> {
			MockHttpServletResponse second = new MockHttpServletResponse();
			queuedBehind.doFilter(new MockHttpServletRequest("GET", "/client/2/balance"), second,
					(req, res) -> ((MockHttpServletResponse) res).setStatus(200));
			whileHeld.add(second.getStatus());
		});
		assertThat(whileHeld).as("1 running and 2 queued: the limit of 3 reached").containsExactly(503);
		queued[0] = 1;
		MockHttpServletResponse afterDrain = new MockHttpServletResponse();
		queuedBehind.doFilter(new MockHttpServletRequest("GET", "/client/1/balance"), afterDrain,
				(req, res) -> ((MockHttpServletResponse) res).setStatus(200));
		assertThat(afterDrain.getStatus()).isEqualTo(200);
	}

	@Test
	void releasesWhenTheRequestFails() throws Exception {
		try {
			send("/health", (request, response) -> {
				throw new IOException("broken pipe");
			});
		}
		catch (IOException expected) {
			// the chain's failure goes on up; the request is no longer held
		}
		assertThat(send("/health", (req, res) -> ((MockHttpServletResponse) res).setStatus(200)).getStatus())
			.isEqualTo(200);
	}

	@Test
	void refusesALimitBelowOne() {
		assertThatIllegalArgumentException().isThrownBy(() -> new AdmissionFilter(0, () -> 0))
			.withMessageContaining("MAX_CONCURRENT_REQUESTS=0");
	}

	private MockHttpServletResponse send(String path, FilterChain chain) throws ServletException, IOException {
		MockHttpServletResponse response = new MockHttpServletResponse();
		this.filter.doFilter(new MockHttpServletRequest("GET", path), response, chain);
		return response;
	}

	private double gauge(String name) {
		return this.registry.get(name).gauge().value();
	}

}
