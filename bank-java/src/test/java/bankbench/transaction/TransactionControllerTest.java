package bankbench.transaction;

import java.net.SocketTimeoutException;
import java.sql.SQLException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.http.MediaType;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MvcTestResult;

import bankbench.client.ClientNotFoundException;

import static bankbench.support.ApiAssertions.assertError;
import static bankbench.support.ApiAssertions.assertOk;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.verifyNoInteractions;

@WebMvcTest(TransactionController.class)
class TransactionControllerTest {

	private static final String VALID = "{\"from_client_id\":1,\"to_client_id\":2,\"amount\":30}";

	private static final String OBJECT_MESSAGE = "request body must be a JSON object";

	@Autowired
	private MockMvcTester mvc;

	@MockitoBean
	private TransactionRepository transactions;

	@Test
	void transfers() {
		given(this.transactions.transfer(new TransferRequest(1, 2, 30))).willReturn(new Transfer(9, 1, 2, 30));
		assertOk(post(VALID, MediaType.APPLICATION_JSON),
				"{\"id\":9,\"from_client_id\":1,\"to_client_id\":2,\"amount\":30}");
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "application/json;charset=utf-8", "Application/JSON" })
	void takesJsonOrNoContentType(String contentType) {
		given(this.transactions.transfer(new TransferRequest(1, 2, 30))).willReturn(new Transfer(9, 1, 2, 30));
		MvcTestResult result = contentType.isEmpty() ? post(VALID, null) : post(VALID, MediaType.valueOf(contentType));
		assertOk(result, "{\"id\":9,\"from_client_id\":1,\"to_client_id\":2,\"amount\":30}");
	}

	@ParameterizedTest
	@ValueSource(strings = { "text/plain", "application/x-www-form-urlencoded", "multipart/form-data" })
	void rejectsOtherContentType(String contentType) {
		assertError(post(VALID, MediaType.valueOf(contentType)), 415, "Content-Type must be application/json");
	}

	@Test
	void rejectsBodyOver64KiB() {
		assertError(post(" ".repeat(64 * 1024) + VALID, MediaType.APPLICATION_JSON), 413,
				"request body must be at most 65536 bytes");
	}

	@Test
	void ignoresUnknownFields() {
		given(this.transactions.transfer(new TransferRequest(1, 2, 30))).willReturn(new Transfer(9, 1, 2, 30));
		String body = "{\"id\":5,\"from_client_id\":1,\"note\":[1,{}],\"to_client_id\":2,\"amount\":30,\"x\":null}";
		assertOk(post(body, MediaType.APPLICATION_JSON),
				"{\"id\":9,\"from_client_id\":1,\"to_client_id\":2,\"amount\":30}");
	}

	@ParameterizedTest
	@ValueSource(strings = { "", " ", "null", "[]", "[" + VALID + "]", "1", "\"x\"", "true", "{", "{\"amount\":}",
			"not json", VALID + " x", VALID + "{}", VALID + "]", "{\"from_client_id\":01,\"to_client_id\":2}" })
	void rejectsBodyThatIsNotAnObject(String body) {
		assertBadRequest(body, OBJECT_MESSAGE);
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			{"to_client_id":2,"amount":30}                                      | from_client_id
			{"from_client_id":null,"to_client_id":2,"amount":30}                | from_client_id
			{"from_client_id":"1","to_client_id":2,"amount":30}                 | from_client_id
			{"from_client_id":1.0,"to_client_id":2,"amount":30}                 | from_client_id
			{"from_client_id":1e2,"to_client_id":2,"amount":30}                 | from_client_id
			{"from_client_id":9223372036854775808,"to_client_id":2,"amount":30} | from_client_id
			{"from_client_id":true,"to_client_id":2,"amount":30}                | from_client_id
			{"from_client_id":[1],"to_client_id":2,"amount":30}                 | from_client_id
			{"from_client_id":{},"to_client_id":2,"amount":30}                  | from_client_id
			{"from_client_id":1,"amount":30}                                    | to_client_id
			{"from_client_id":1,"to_client_id":-9223372036854775809,"amount":30}| to_client_id
			{"from_client_id":1,"to_client_id":2}                               | amount
			{"from_client_id":1,"to_client_id":2,"amount":30.5}                 | amount
			{"from_client_id":1,"to_client_id":2,"amount":1E1}                  | amount
			{"from_client_id":"x","to_client_id":null}                          | from_client_id
			{"from_client_id":1,"to_client_id":"2","amount":"x"}                | to_client_id
			""")
	void rejectsFieldThatIsNotAnInteger(String body, String field) {
		assertBadRequest(body, field + " must be an integer");
	}

	@ParameterizedTest
	@ValueSource(strings = { "0", "-1", "1000000000000001", "9223372036854775807" })
	void rejectsAmountOutsideRange(String amount) {
		// from and to are equal too: the amount is checked first.
		assertBadRequest("{\"from_client_id\":1,\"to_client_id\":1,\"amount\":" + amount + "}",
				"amount must be from 1 to 1000000000000000");
	}

	@Test
	void rejectsTransferToItself() {
		assertBadRequest("{\"from_client_id\":3,\"to_client_id\":3,\"amount\":1}",
				"from_client_id and to_client_id must differ");
	}

	@Test
	void answersNotFoundForUnknownClient() {
		given(this.transactions.transfer(any())).willThrow(new ClientNotFoundException());
		assertError(post(VALID, MediaType.APPLICATION_JSON), 404, "client not found");
	}

	@Test
	void answersUnprocessableOnInsufficientFunds() {
		given(this.transactions.transfer(any())).willThrow(new InsufficientFundsException());
		assertError(post(VALID, MediaType.APPLICATION_JSON), 422, "insufficient funds");
	}

	@Test
	void answersUnavailableOnSocketTimeout() {
		var timeout = new SQLException("An I/O error occurred while sending to the backend.", "08006",
				new SocketTimeoutException("Read timed out"));
		given(this.transactions.transfer(any())).willThrow(new QueryTimeoutException("transfer", timeout));
		assertError(post(VALID, MediaType.APPLICATION_JSON), 503, "database unavailable");
	}

	private void assertBadRequest(String body, String message) {
		assertError(post(body, MediaType.APPLICATION_JSON), 400, message);
		verifyNoInteractions(this.transactions);
	}

	private MvcTestResult post(String body, MediaType contentType) {
		var request = this.mvc.post().uri("/transaction").content(body);
		return (contentType != null) ? request.contentType(contentType).exchange() : request.exchange();
	}

}
