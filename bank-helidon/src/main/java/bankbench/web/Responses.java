package bankbench.web;

import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/** How every answer of the service is sent. */
public final class Responses {

	private Responses() {
	}

	/**
	 * Answers with body of the given type, or only its headers to a {@code HEAD} request:
	 * Helidon serves {@code HEAD} where a route accepts it (every {@code GET} route here,
	 * as net/http and Tomcat serve it) but would write the body all the same.
	 */
	public static void send(ServerRequest req, ServerResponse res, Header type, byte[] body) {
		res.header(type);
		if (Method.HEAD.equals(req.prologue().method())) {
			res.header(HeaderNames.CONTENT_LENGTH, Integer.toString(body.length));
			res.send();
		}
		else {
			res.send(body);
		}
	}

}
