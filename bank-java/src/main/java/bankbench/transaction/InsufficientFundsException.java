package bankbench.transaction;

import org.springframework.http.HttpStatus;

import bankbench.web.ApiException;

/**
 * The source balance is below the amount of a transfer: 422 {@code insufficient funds}.
 */
class InsufficientFundsException extends ApiException {

	InsufficientFundsException() {
		super(HttpStatus.UNPROCESSABLE_CONTENT, "insufficient funds");
	}

}
