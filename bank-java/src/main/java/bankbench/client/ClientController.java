package bankbench.client;

import java.util.regex.Pattern;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

import bankbench.system.Money;
import bankbench.web.ApiException;

/** {@code POST /client/new/{balance}} and {@code GET /client/{id}/balance}. */
@RestController
class ClientController {

	private static final String BALANCE_MESSAGE = "balance must be a whole number from 0 to " + Money.MAX;

	// ASCII only: Long.parseLong alone also accepts other scripts' digits, such as "١".
	private static final Pattern INTEGER = Pattern.compile("[+-]?[0-9]+");

	private final ClientRepository clients;

	ClientController(ClientRepository clients) {
		this.clients = clients;
	}

	@PostMapping("/client/new/{balance}")
	Client create(@PathVariable String balance) {
		long opening = parseLong(balance, BALANCE_MESSAGE);
		if (opening < 0 || opening > Money.MAX) {
			throw ApiException.badRequest(BALANCE_MESSAGE);
		}
		return this.clients.create(opening);
	}

	@GetMapping("/client/{id}/balance")
	Balance balance(@PathVariable String id) {
		long balance = this.clients.balance(parseLong(id, "id must be an integer"))
			.orElseThrow(ClientNotFoundException::new);
		return new Balance(balance);
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
