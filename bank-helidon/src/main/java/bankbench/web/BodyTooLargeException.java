package bankbench.web;

import io.helidon.http.Status;

/**
 * A request body over {@link JsonBody#MAX_BYTES}: 413, and the connection is closed after
 * the answer, the rest of the body left unread (see {@link ApiErrors#answering}).
 */
final class BodyTooLargeException extends ApiException {

	private static final String MESSAGE = "request body must be at most " + JsonBody.MAX_BYTES + " bytes";

	BodyTooLargeException() {
		super(Status.REQUEST_ENTITY_TOO_LARGE_413.code(), MESSAGE);
	}

}
