package bankbench.web;

import org.springframework.http.HttpStatus;

/**
 * An expected failure of a request (a check of the contract that did not pass), answered
 * with its status and its message as they are; see {@link ApiErrors}.
 */
public class ApiException extends RuntimeException {

	private final HttpStatus status;

	/** Creates a failure answered with status and message. */
	public ApiException(HttpStatus status, String message) {
		// No stack trace: these are ordinary answers (a 422 on every transfer of an
		// emptied account under load), and filling one would cost more than the request
		// itself.
		super(message, null, false, false);
		this.status = status;
	}

	/** Returns a 400 Bad Request failure with message. */
	public static ApiException badRequest(String message) {
		return new ApiException(HttpStatus.BAD_REQUEST, message);
	}

	/** Returns the status the failure is answered with. */
	public HttpStatus status() {
		return this.status;
	}

}
