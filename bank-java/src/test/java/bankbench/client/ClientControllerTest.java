package bankbench.client;

import java.util.OptionalLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.assertj.MockMvcTester;

import static bankbench.support.ApiAssertions.assertError;
import static bankbench.support.ApiAssertions.assertOk;
import static org.mockito.BDDMockito.given;
import static org.mockito.BDDMockito.then;
import static org.mockito.Mockito.verifyNoInteractions;

@WebMvcTest(ClientController.class)
class ClientControllerTest {

	private static final String BALANCE_MESSAGE = "balance must be a whole number from 0 to 1000000000000000";

	@Autowired
	private MockMvcTester mvc;

	@MockitoBean
	private ClientRepository clients;

	@ParameterizedTest
	@CsvSource({ "0, 0", "+7, 7", "-0, 0", "007, 7", "1000000000000000, 1000000000000000" })
	void createsClientWithOpeningBalance(String path, long balance) {
		given(this.clients.create(balance)).willReturn(new Client(42, "", "", "", balance));
		assertOk(this.mvc.post().uri("/client/new/{balance}", path).exchange(),
				"{\"id\":42,\"name\":\"\",\"email\":\"\",\"phone\":\"\",\"balance\":" + balance + "}");
	}

	@ParameterizedTest
	@ValueSource(strings = { "-1", "1000000000000001", "9223372036854775808", "abc", "1.0", "1e3", " 1", "0x10", "١" })
	void rejectsBalanceOutsideRange(String balance) {
		assertError(this.mvc.post().uri("/client/new/{balance}", balance).exchange(), 400, BALANCE_MESSAGE);
		verifyNoInteractions(this.clients);
	}

	@Test
	void answersBalance() {
		given(this.clients.balance(7)).willReturn(OptionalLong.of(1500));
		assertOk(this.mvc.get().uri("/client/7/balance").exchange(), "{\"balance\":1500}");
	}

	@ParameterizedTest
	@ValueSource(strings = { "123456789", "-1", "0" })
	void answersNotFoundForUnknownClient(String id) {
		given(this.clients.balance(Long.parseLong(id))).willReturn(OptionalLong.empty());
		assertError(this.mvc.get().uri("/client/{id}/balance", id).exchange(), 404, "client not found");
	}

	@ParameterizedTest
	@ValueSource(strings = { "abc", "1.0", "9223372036854775808", "-9223372036854775809", "٣", "１", "+", "1 " })
	void rejectsIdThatIsNotAnInteger(String id) {
		assertError(this.mvc.get().uri("/client/{id}/balance", id).exchange(), 400, "id must be an integer");
		verifyNoInteractions(this.clients);
	}

	@Test
	void acceptsExtremeIds() {
		given(this.clients.balance(Long.MIN_VALUE)).willReturn(OptionalLong.empty());
		assertError(this.mvc.get().uri("/client/{id}/balance", Long.MIN_VALUE).exchange(), 404, "client not found");
		then(this.clients).should().balance(Long.MIN_VALUE);
	}

	@Test
	void answersUnavailableWithoutPooledConnection() {
		given(this.clients.create(1)).willThrow(new CannotGetJdbcConnectionException("timeout"));
		assertError(this.mvc.post().uri("/client/new/1").exchange(), 503, "database unavailable");
	}

	@Test
	void answersInternalErrorOnOtherDatabaseFailure() {
		PSQLException violation = new PSQLException(new ServerErrorMessage("SERROR\0C23514\0Mcheck violation\0"));
		given(this.clients.create(1)).willThrow(new DataIntegrityViolationException("insert", violation));
		assertError(this.mvc.post().uri("/client/new/1").exchange(), 500, "internal error");
	}

	@Test
	void answersInternalErrorOnUnexpectedFailure() {
		given(this.clients.balance(1)).willThrow(new IllegalStateException("bug"));
		assertError(this.mvc.get().uri("/client/1/balance").exchange(), 500, "internal error");
	}

	@Test
	void answersMethodNotAllowed() {
		assertError(this.mvc.get().uri("/client/new/1").exchange(), 405, "method not allowed");
		assertError(this.mvc.post().uri("/client/1/balance").exchange(), 405, "method not allowed");
	}

}
