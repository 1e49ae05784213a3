package bankbench.web;

import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.transaction.TransactionException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.async.AsyncRequestNotUsableException;
import org.springframework.web.servlet.NoHandlerFoundException;
import org.springframework.web.servlet.resource.NoResourceFoundException;

/**
 * The one place where failures become responses: every error is
 * {@code {"status":"Error","message":"..."}} with the status and the exact message of the
 * contract. Unexpected failures are logged and answered without detail.
 */
@RestControllerAdvice
class ApiErrors {

	/** The message of a 503, when the database cannot serve. */
	static final String DATABASE_UNAVAILABLE = "database unavailable";

	private static final Logger log = LoggerFactory.getLogger(ApiErrors.class);

	/** The body of every error response. */
	record ErrorBody(String status, String message) {

		ErrorBody(String message) {
			this("Error", message);
		}

	}

	@ExceptionHandler
	ResponseEntity<ErrorBody> expected(ApiException ex) {
		return error(HttpStatus.valueOf(ex.status()), ex.getMessage());
	}

	@ExceptionHandler({ NoResourceFoundException.class, NoHandlerFoundException.class })
	ResponseEntity<ErrorBody> unknownPath() {
		return error(HttpStatus.NOT_FOUND);
	}

	/**
	 * A path served with other methods: 405 with an {@code Allow} header worded as the Go
	 * service's, where {@code HEAD} goes with {@code GET} (both servers serve it).
	 */
	@ExceptionHandler
	ResponseEntity<ErrorBody> wrongMethod(HttpRequestMethodNotSupportedException ex) {
		Set<String> allowed = new LinkedHashSet<>();
		for (String method : (ex.getSupportedMethods() != null) ? ex.getSupportedMethods() : new String[0]) {
			allowed.add(method);
			if (method.equals("GET")) {
				allowed.add("HEAD");
			}
		}
		return ResponseEntity.status(HttpStatus.METHOD_NOT_ALLOWED)
			.header(HttpHeaders.ALLOW, String.join(", ", allowed))
			.body(new ErrorBody(message(HttpStatus.METHOD_NOT_ALLOWED)));
	}

	@ExceptionHandler({ DataAccessException.class, TransactionException.class })
	ResponseEntity<ErrorBody> database(RuntimeException ex) {
		if (isDatabaseUnavailable(ex)) {
			// Not logged: while the database is down, every request would log one.
			return error(HttpStatus.SERVICE_UNAVAILABLE);
		}
		return unexpected(ex);
	}

	/**
	 * The rule of {@link DatabaseErrors}, through Spring's exceptions, which wrap JDBC's:
	 * Spring's {@link CannotGetJdbcConnectionException} too means that the server could
	 * not be reached, since it may carry no {@link java.sql.SQLException} (a data source
	 * that failed otherwise).
	 */
	static boolean isDatabaseUnavailable(Throwable ex) {
		return DatabaseErrors.isUnavailable(ex, CannotGetJdbcConnectionException.class::isInstance);
	}

	/**
	 * The client hung up before its answer was written (its timeout, a closed
	 * connection): there is nobody to answer, and nothing went wrong here. Like the Go
	 * service, say nothing.
	 */
	@ExceptionHandler
	void clientGone(AsyncRequestNotUsableException ex) {
		log.debug("client gone: {}", ex.getMessage());
	}

	@ExceptionHandler
	ResponseEntity<ErrorBody> unexpected(Exception ex) {
		log.error("internal error", ex);
		return error(HttpStatus.INTERNAL_SERVER_ERROR);
	}

	/** Returns the error response of a status that carries no detail of its own. */
	static ResponseEntity<ErrorBody> error(HttpStatus status) {
		return error(status, message(status));
	}

	private static ResponseEntity<ErrorBody> error(HttpStatus status, String message) {
		return ResponseEntity.status(status).body(new ErrorBody(message));
	}

	/**
	 * The contract's message for a status code without detail; see
	 * {@link #message(HttpStatus)}.
	 */
	static String message(int status) {
		HttpStatus known = HttpStatus.resolve(status);
		if (known != null) {
			return message(known);
		}
		return (status >= 500) ? "internal error" : "error";
	}

	/**
	 * The contract's message for a status without detail, the rule of the Go service's
	 * {@code statusAnswer} too: 400 is a request the HTTP parser could not read, 5xx an
	 * internal error, others get their reason phrase.
	 */
	private static String message(HttpStatus status) {
		return switch (status) {
			case BAD_REQUEST -> "malformed request";
			case NOT_FOUND -> "not found";
			case METHOD_NOT_ALLOWED -> "method not allowed";
			case SERVICE_UNAVAILABLE -> DATABASE_UNAVAILABLE;
			default -> status.is5xxServerError() ? "internal error" : status.getReasonPhrase().toLowerCase(Locale.ROOT);
		};
	}

}
