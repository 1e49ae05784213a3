package bankbench.client;

import java.sql.SQLException;

import javax.sql.DataSource;

import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import bankbench.web.Json;
import bankbench.web.Routes;

/**
 * {@code POST /client/new/{balance}} and {@code GET /client/{id}/balance}, their path
 * parameters checked by {@link ClientPaths}.
 */
public final class ClientService implements HttpService {

	private final ClientRepository clients;

	public ClientService(DataSource dataSource) {
		this.clients = new ClientRepository(dataSource);
	}

	@Override
	public void routing(HttpRules rules) {
		rules.route(Routes.post("/client/new/{balance}", this::create))
			.route(Routes.get("/client/{id}/balance", this::balance));
	}

	private void create(ServerRequest req, ServerResponse res) throws SQLException {
		long opening = ClientPaths.openingBalance(req.path().pathParameters().get("balance"));
		Json.send(req, res, this.clients.create(opening));
	}

	private void balance(ServerRequest req, ServerResponse res) throws SQLException {
		long id = ClientPaths.id(req.path().pathParameters().get("id"));
		long balance = this.clients.balance(id).orElseThrow(ClientNotFoundException::new);
		Json.send(req, res, new Balance(balance));
	}

}
