package bankbench.web;

/**
 * An expected failure of a request (a check of the contract that did not pass), answered
 * with its HTTP status and its message as they are by each service's {@code ApiErrors}.
 * The status is its code, so that the checks shared by the services throw it whatever
 * their web framework.
 */
public class ApiException extends RuntimeException {

	private final int status;

	/** Creates a failure answered with the HTTP status code status and message. */
	public ApiException(int status, String message) {
		// No stack trace: these are ordinary answers (a 422 on every transfer of an
		// emptied account under load), and filling one would cost more than the request
		// itself.
		super(message, null, false, false);
		this.status = status;
	}

	/** Returns a 400 Bad Request failure with message. */
	public static ApiException badRequest(String message) {
		return new ApiException(400, message);
	}

	/** Returns the HTTP status code the failure is answered with. */
	public int status() {
		return this.status;
	}

}
