package bankbench.client;

import java.util.regex.Pattern;

import bankbench.system.Money;
import bankbench.web.ApiException;

/**
 * The path parameters of the client routes, checked before any database call: each is a
 * 64-bit integer in ASCII digits, with an optional sign, or the request fails with a 400
 * and the contract's message.
 */
final class ClientPaths {

	private static final String BALANCE_MESSAGE = "balance must be a whole number from 0 to " + Money.MAX;

	// ASCII only: Long.parseLong alone also accepts other scripts' digits, such as "١".
	private static final Pattern INTEGER = Pattern.compile("[+-]?[0-9]+");

	private ClientPaths() {
	}

	/**
	 * Returns the opening balance of {@code POST /client/new/{balance}}, from 0 to
	 * {@link Money#MAX}.
	 */
	static long openingBalance(String balance) {
		long opening = parseLong(balance, BALANCE_MESSAGE);
		if (opening < 0 || opening > Money.MAX) {
			throw ApiException.badRequest(BALANCE_MESSAGE);
		}
		return opening;
	}

	/** Returns the client id of {@code GET /client/{id}/balance}. */
	static long id(String id) {
		return parseLong(id, "id must be an integer");
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

}
