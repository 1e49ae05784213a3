package bankbench.web;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;

/**
 * Answers in the contract's JSON the errors Tomcat raises before a request reaches Spring
 * MVC, such as a malformed percent-encoding in the path or malformed headers, where
 * Tomcat's own report is an HTML page. The Go service rewrites net/http's plain-text
 * answers the same way. Public, with the default constructor: Tomcat's host creates it
 * from its class name.
 */
public class JsonErrorReportValve extends ErrorReportValve {

	@Override
	protected void report(Request request, Response response, Throwable throwable) {
		int status = response.getStatus();
		if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
			return;
		}
		// The messages are fixed ASCII texts without quotes or backslashes: no escaping
		// needed.
		byte[] body = ("{\"status\":\"Error\",\"message\":\"" + ApiErrors.message(status) + "\"}")
			.getBytes(StandardCharsets.UTF_8);
		try {
			response.setContentType("application/json");
			response.setContentLength(body.length);
			response.getOutputStream().write(body);
			response.finishResponse();
		}
		catch (IOException | IllegalStateException ex) {
			// The client is gone or the response already taken: there is no one left to
			// answer.
		}
	}

}
