package bankbench.transaction;

import io.helidon.http.Status;

import bankbench.web.ApiException;

/**
 * The source balance is below the amount of a transfer: 422 {@code insufficient funds}.
 */
class InsufficientFundsException extends ApiException {

	InsufficientFundsException() {
		super(Status.UNPROCESSABLE_CONTENT_422, "insufficient funds");
	}

}
