package bankbench.system;

import java.io.IOException;

import io.micrometer.common.KeyValue;
import org.junit.jupiter.api.Test;

import org.springframework.http.server.observation.ServerRequestObservationContext;
import org.springframework.http.server.observation.ServerRequestObservationConvention;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** The request metrics' status of a request whose client went away. */
class MetricsConfigTest {

	private final ServerRequestObservationConvention convention = new MetricsConfig().clientGoneIs499();

	@Test
	void countsAnAnswerTheClientResetAs499() {
		ServerRequestObservationContext context = answered(503);
		context.setError(new IOException("Connection reset by peer"));
		assertThat(this.convention.getLowCardinalityKeyValues(context)).contains(KeyValue.of("status", "499"),
				KeyValue.of("outcome", "CLIENT_ERROR"));
	}

	@Test
	void countsOtherFailuresUnderTheirStatus() {
		ServerRequestObservationContext context = answered(500);
		context.setError(new IllegalStateException("bug"));
		assertThat(this.convention.getLowCardinalityKeyValues(context)).contains(KeyValue.of("status", "500"),
				KeyValue.of("outcome", "SERVER_ERROR"));
		assertThat(this.convention.getLowCardinalityKeyValues(answered(503))).contains(KeyValue.of("status", "503"));
	}

	private static ServerRequestObservationContext answered(int status) {
		MockHttpServletResponse response = new MockHttpServletResponse();
		response.setStatus(status);
		return new ServerRequestObservationContext(new MockHttpServletRequest("GET", "/client/1/balance"), response);
	}

}
