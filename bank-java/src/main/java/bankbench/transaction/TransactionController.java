package bankbench.transaction;

import java.io.IOException;
import java.io.InputStream;

import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

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
	 * Takes the raw body rather than a {@code @RequestBody}: the contract does not check the
	 * Content-Type, and Spring would read a form-encoded one (curl's default) as parameters.
	 */
	@PostMapping("/transaction")
	Transfer transfer(InputStream body) throws IOException {
		return this.transactions.transfer(TransferRequest.read(this.json, body.readAllBytes()));
	}

}
