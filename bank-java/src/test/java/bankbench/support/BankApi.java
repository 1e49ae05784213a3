package bankbench.support;

import tools.jackson.databind.JsonNode;

import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;
import org.springframework.test.web.servlet.client.RestTestClient.ResponseSpec;

/** The bank's HTTP API as integration tests call it, over a {@link RestTestClient}. */
public final class BankApi {

	private final RestTestClient http;

	/** Calls the service that http is bound to. */
	public BankApi(RestTestClient http) {
		this.http = http;
	}

	/** Creates a client with an opening balance and returns its id. */
	public long createClient(long balance) {
		return ok(this.http.post().uri("/client/new/{balance}", balance).exchange()).get("id").asLong();
	}

	/** Returns the balance of a client that exists. */
	public long balance(long id) {
		return ok(this.http.get().uri("/client/{id}/balance", id).exchange()).get("balance").asLong();
	}

	/** Posts a transfer and returns the response, for the test to check. */
	public ResponseSpec transfer(long from, long to, long amount) {
		return this.http.post()
			.uri("/transaction")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"from_client_id\":%d,\"to_client_id\":%d,\"amount\":%d}".formatted(from, to, amount))
			.exchange();
	}

	/** Returns the JSON body of a response that must be a 200. */
	public static JsonNode ok(ResponseSpec response) {
		return response.expectStatus().isOk().expectBody(JsonNode.class).returnResult().getResponseBody();
	}

}
