package bankbench.transaction;

import java.io.IOException;
import java.sql.SQLException;

import javax.sql.DataSource;

import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import bankbench.web.Json;
import bankbench.web.JsonBody;
import bankbench.web.Routes;

/** {@code POST /transaction}: a transfer between two clients. */
public final class TransactionService implements HttpService {

	private final TransactionRepository transactions;

	public TransactionService(DataSource dataSource) {
		this.transactions = new TransactionRepository(dataSource);
	}

	@Override
	public void routing(HttpRules rules) {
		rules.route(Routes.post("/transaction", this::transfer));
	}

	/**
	 * Reads the raw body rather than through Helidon's media support, so that the
	 * Content-Type and size checks and the JSON ones answer with the contract's statuses
	 * and messages, in its order.
	 */
	private void transfer(ServerRequest req, ServerResponse res) throws IOException, SQLException {
		TransferRequest request = TransferRequest.read(Json.STRICT_READER, JsonBody.read(req));
		Json.send(req, res, this.transactions.transfer(request));
	}

}
