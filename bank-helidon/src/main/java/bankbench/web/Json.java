package bankbench.web;

import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * The service's one Jackson mapper, the one bank-java's Spring Boot uses (Jackson 3): it
 * writes every answer as {@code application/json} and reads request bodies strictly.
 */
public final class Json {

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	/** Reads a whole body as one JSON value: anything after it is an error. */
	public static final ObjectReader STRICT_READER = MAPPER.reader()
		.with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

	private Json() {
	}

	/** Answers 200 with body as JSON. */
	public static void send(ServerRequest req, ServerResponse res, Object body) {
		send(req, res, Status.OK_200, body);
	}

	/** Answers status with body as JSON. */
	public static void send(ServerRequest req, ServerResponse res, Status status, Object body) {
		res.status(status);
		Responses.send(req, res, HeaderValues.CONTENT_TYPE_JSON, bytes(body));
	}

	/** The JSON text of value, one of this service's records. */
	static byte[] bytes(Object value) {
		return MAPPER.writeValueAsBytes(value);
	}

}
