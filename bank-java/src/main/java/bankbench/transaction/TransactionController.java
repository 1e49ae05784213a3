package bankbench.transaction;

import java.io.IOException;

import jakarta.servlet.http.HttpServletRequest;

import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

import bankbench.web.JsonBody;

/** {@code POST /transaction}: a transfer between two clients. */
@RestController
class TransactionController {

	private final TransactionRepository transactions;

	private final ObjectReader json;

	TransactionController(TransactionRepository transactions, JsonMapper mapper) {
		this.transactions = transactions;
		this.json = mapper.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
	}

	/**
	 * Reads the raw body rather than a {@code @RequestBody}, so that the Content-Type and
	 * size checks and the JSON ones answer with the contract's statuses and messages, in
	 * its order.
	 */
	@PostMapping("/transaction")
	Transfer transfer(HttpServletRequest request) throws IOException {
		return this.transactions.transfer(TransferRequest.read(this.json, JsonBody.read(request)));
	}

}
