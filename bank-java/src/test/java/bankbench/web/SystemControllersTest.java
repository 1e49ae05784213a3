package bankbench.web;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.web.context.request.async.AsyncRequestNotUsableException;

import bankbench.system.DatabaseHealth;

import static bankbench.support.ApiAssertions.assertError;
import static bankbench.support.ApiAssertions.assertOk;
import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.willAnswer;
import static org.mockito.BDDMockito.willThrow;

@WebMvcTest({ LivenessController.class, HealthController.class, ErrorPageController.class })
@ExtendWith(OutputCaptureExtension.class)
class SystemControllersTest {

	private static final String OK = "{\"status\":\"Ok\"}";

	@Autowired
	private MockMvcTester mvc;

	@MockitoBean
	private DatabaseHealth database;

	@Test
	void isLiveWithoutDatabase() {
		willThrow(new CannotGetJdbcConnectionException("down")).given(this.database).check();
		assertOk(this.mvc.get().uri("/").exchange(), OK);
	}

	@Test
	void isReadyWhenDatabaseAnswers() {
		assertOk(this.mvc.get().uri("/health").exchange(), OK);
	}

	@Test
	void isUnavailableWhenDatabaseFails() {
		willThrow(new CannotGetJdbcConnectionException("down")).given(this.database).check();
		assertError(this.mvc.get().uri("/health").exchange(), 503, "database unavailable");
	}

	@Test
	void saysNothingWhenTheClientIsGone(CapturedOutput output) {
		// Checked, so thrown from an answer: in service it comes from writing the
		// response.
		willAnswer((invocation) -> {
			throw new AsyncRequestNotUsableException("Broken pipe");
		}).given(this.database).check();
		var result = this.mvc.get().uri("/health").exchange();
		assertThat(result.getResponse().getContentAsByteArray()).isEmpty();
		assertThat(result.getResponse().getStatus()).isNotEqualTo(500);
		assertThat(output).doesNotContain("internal error").doesNotContain("ERROR");
	}

	@Test
	void answersJsonWhateverTheAcceptHeader() {
		assertOk(this.mvc.get().uri("/").accept("text/html").exchange(), OK);
		assertError(this.mvc.get().uri("/nowhere").accept("text/plain").exchange(), 404, "not found");
	}

	@Test
	void answersNotFoundForUnknownPath() {
		assertError(this.mvc.get().uri("/nowhere").exchange(), 404, "not found");
		assertError(this.mvc.post().uri("/client/new").exchange(), 404, "not found");
		assertError(this.mvc.get().uri("/client/1/balance/").exchange(), 404, "not found");
	}

	@Test
	void hidesErrorPage() {
		assertError(this.mvc.get().uri("/error").exchange(), 404, "not found");
	}

	@Test
	void answersMethodNotAllowed() {
		var result = this.mvc.delete().uri("/").exchange();
		assertError(result, 405, "method not allowed");
		assertThat(result).hasHeader("Allow", "GET, HEAD");
		assertError(this.mvc.post().uri("/health").exchange(), 405, "method not allowed");
		var options = this.mvc.options().uri("/health").exchange();
		assertError(options, 405, "method not allowed");
		assertThat(options).hasHeader("Allow", "GET, HEAD");
	}

}
