package bankbench.transaction;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;

import bankbench.system.Money;
import bankbench.web.ApiException;

/**
 * The body of {@code POST /transaction}, read from its bytes and checked by hand, in the
 * contract's order, so that the checks are strict (1.0, 1e2 and "1" are not integers) and
 * answer with the contract's messages.
 */
record TransferRequest(long fromClientId, long toClientId, long amount) {

	/**
	 * Reads a request body with reader, which must fail on trailing tokens. Throws a 400
	 * {@link ApiException} with the message of the first check that fails.
	 */
	static TransferRequest read(ObjectReader reader, byte[] body) {
		JsonNode json = object(reader, body);
		// Arguments are evaluated left to right: the fields are checked in the contract's
		// order.
		TransferRequest request = new TransferRequest(integer(json, "from_client_id"), integer(json, "to_client_id"),
				integer(json, "amount"));
		if (request.amount < 1 || request.amount > Money.MAX) {
			throw ApiException.badRequest("amount must be from 1 to " + Money.MAX);
		}
		if (request.fromClientId == request.toClientId) {
			throw ApiException.badRequest("from_client_id and to_client_id must differ");
		}
		return request;
	}

	private static JsonNode object(ObjectReader reader, byte[] body) {
		try {
			JsonNode json = (body.length == 0) ? null : reader.readTree(body);
			if (json != null && json.isObject()) {
				return json;
			}
		}
		catch (JacksonException ex) {
			// Not JSON at all: answered below like any other body that is not an object.
		}
		throw ApiException.badRequest("request body must be a JSON object");
	}

	private static long integer(JsonNode json, String field) {
		JsonNode value = json.get(field);
		if (value == null || !value.isIntegralNumber() || !value.canConvertToLong()) {
			throw ApiException.badRequest(field + " must be an integer");
		}
		return value.longValue();
	}

}
