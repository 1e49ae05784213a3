package bankbench.transaction;

import bankbench.web.ApiException;

/**
 * The source balance is below the amount of a transfer: 422 {@code insufficient funds}.
 */
class InsufficientFundsException extends ApiException {

	InsufficientFundsException() {
		super(422, "insufficient funds");
	}

}
