package bankbench.client;

import bankbench.web.ApiException;

/** A client of the request does not exist: 404 {@code client not found}. */
public class ClientNotFoundException extends ApiException {

	/** Creates the failure; it carries no detail, the message is the contract's. */
	public ClientNotFoundException() {
		super(404, "client not found");
	}

}
