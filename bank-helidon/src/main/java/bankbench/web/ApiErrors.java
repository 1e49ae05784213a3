package bankbench.web;

import java.lang.System.Logger.Level;
import java.sql.SQLException;
import java.util.Locale;

import io.helidon.http.DirectHandler;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.http.DirectHandlers;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * The one place where failures become responses: every error is
 * {@code {"status":"Error","message":"..."}} with the status and the exact message of the
 * contract, whether a handler failed or Helidon refused the request before any route (its
 * direct handlers). Unexpected failures are logged and answered without detail.
 */
public final class ApiErrors {

	/** The message of a 503, when the database cannot serve. */
	private static final String DATABASE_UNAVAILABLE = "database unavailable";

	private static final System.Logger log = System.getLogger(ApiErrors.class.getName());

	/** The body of every error response. */
	record ErrorBody(String status, String message) {

		ErrorBody(String message) {
			this("Error", message);
		}

	}

	private ApiErrors() {
	}

	/**
	 * Returns handler with the answers to what it throws: an {@link ApiException} as it
	 * says, a database failure as 503 or 500 ({@link DatabaseErrors}). Anything else
	 * reaches Helidon, which logs it and answers 500 through {@link #directHandlers()}.
	 * <p>
	 * The handler answers its own failures rather than Helidon's error handlers: an
	 * answer an error handler cannot write, its client gone, is logged as a warning with
	 * its stack and reaches the filters as another exception, so {@link RequestMetrics}
	 * could not count it 499.
	 */
	static Handler answering(Handler handler) {
		return (req, res) -> {
			try {
				handler.handle(req, res);
			}
			catch (BodyTooLargeException ex) {
				// Helidon would read the rest of the body to keep the connection, however
				// long it is, and only then read the next request.
				res.header(HeaderValues.CONNECTION_CLOSE);
				send(req, res, Status.create(ex.status()), ex.getMessage());
				throw new CloseConnectionException("request body over the limit left unread");
			}
			catch (ApiException ex) {
				send(req, res, Status.create(ex.status()), ex.getMessage());
			}
			catch (SQLException ex) {
				database(req, res, ex);
			}
		};
	}

	private static void database(ServerRequest req, ServerResponse res, SQLException ex) {
		if (DatabaseErrors.isUnavailable(ex)) {
			// Not logged: while the database is down, every request would log one.
			send(req, res, Status.SERVICE_UNAVAILABLE_503);
			return;
		}
		log.log(Level.ERROR, "internal error", ex);
		send(req, res, Status.INTERNAL_SERVER_ERROR_500);
	}

	/** Answers status with its message, of a status that carries no detail of its own. */
	public static void send(ServerRequest req, ServerResponse res, Status status) {
		send(req, res, status, message(status));
	}

	/** Answers status with message. */
	public static void send(ServerRequest req, ServerResponse res, Status status, String message) {
		Json.send(req, res, status, new ErrorBody(message));
	}

	/**
	 * Helidon's answers to what it refuses itself, before or around the routing (a path
	 * that is not valid percent-encoding, malformed headers, an exception a handler does
	 * not answer), in the contract's JSON rather than its plain text. The Go service
	 * rewrites net/http's answers the same way, bank-java has a Tomcat valve.
	 */
	public static DirectHandlers directHandlers() {
		DirectHandler json = (request, eventType, status, headers, message) -> DirectHandler.TransportResponse.builder()
			.status(status)
			.headers(headers)
			.header(HeaderValues.CONTENT_TYPE_JSON)
			.entity(Json.bytes(new ErrorBody(message(status))))
			.build();
		DirectHandlers.Builder handlers = DirectHandlers.builder();
		for (DirectHandler.EventType type : DirectHandler.EventType.values()) {
			handlers.addHandler(type, json);
		}
		return handlers.build();
	}

	/**
	 * The contract's message for a status without detail, the rule of the Go service's
	 * {@code statusAnswer} and bank-java's {@code ApiErrors}: 400 is a request the HTTP
	 * parser could not read, 5xx an internal error, others get their reason phrase.
	 */
	static String message(Status status) {
		return switch (status.code()) {
			case 400 -> "malformed request";
			case 404 -> "not found";
			case 405 -> "method not allowed";
			case 503 -> DATABASE_UNAVAILABLE;
			default -> (status.code() >= 500) ? "internal error"
					: status.reasonPhrase().isEmpty() ? "error" : status.reasonPhrase().toLowerCase(Locale.ROOT);
		};
	}

}
