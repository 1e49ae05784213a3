package bankbench.client;

import java.sql.SQLException;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import bankbench.system.Money;
import bankbench.web.ApiException;
import bankbench.web.Json;
import bankbench.web.Routes;

/** {@code POST /client/new/{balance}} and {@code GET /client/{id}/balance}. */
public final class ClientService implements HttpService {

	private static final String BALANCE_MESSAGE = "balance must be a whole number from 0 to " + Money.MAX;

	// ASCII only: Long.parseLong alone also accepts other scripts' digits, such as "١".
	private static final Pattern INTEGER = Pattern.compile("[+-]?[0-9]+");

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
		long opening = parseLong(req.path().pathParameters().get("balance"), BALANCE_MESSAGE);
		if (opening < 0 || opening > Money.MAX) {
			throw ApiException.badRequest(BALANCE_MESSAGE);
		}
		Json.send(req, res, this.clients.create(opening));
	}

	private void balance(ServerRequest req, ServerResponse res) throws SQLException {
		long id = parseLong(req.path().pathParameters().get("id"), "id must be an integer");
		long balance = this.clients.balance(id).orElseThrow(ClientNotFoundException::new);
		Json.send(req, res, new Balance(balance));
	}

	/**
	 * Parses a path segment holding a 64-bit integer, or fails with a 400 and message.
	 */
	private static long parseLong(String text, String message) {
		if (INTEGER.matcher(text).matches()) {
			try {
				return Long.parseLong(text);
			}
			catch (NumberFormatException ex) {
				// Out of range: answered below like any other text that is not an
				// integer.
			}
		}
		throw ApiException.badRequest(message);
	}

	/** The body of {@code GET /client/{id}/balance}. */
	record Balance(long balance) {
	}

}
