package bankbench.web;

import io.helidon.http.Status;

/**
 * An expected failure of a request (a check of the contract that did not pass), answered
 * with its status and its message as they are; see {@link ApiErrors}.
 */
public class ApiException extends RuntimeException {

	private final Status status;

	/** Creates a failure answered with status and message. */
	public ApiException(Status status, String message) {
		// No stack trace: these are ordinary answers (a 422 on every transfer of an
		// emptied account under load), and filling one would cost more than the request
		// itself.
		super(message, null, false, false);
		this.status = status;
	}

	/** Returns a 400 Bad Request failure with message. */
	public static ApiException badRequest(String message) {
		return new ApiException(Status.BAD_REQUEST_400, message);
	}

	/** Returns the status the failure is answered with. */
	public Status status() {
		return this.status;
	}

}
