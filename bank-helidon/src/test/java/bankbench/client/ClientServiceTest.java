package bankbench.client;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import bankbench.support.WithoutDatabase;

import static bankbench.support.Answers.assertError;

/** The checks of the client routes, which answer before any database call. */
class ClientServiceTest extends WithoutDatabase {

	private static final String BALANCE_RANGE = "balance must be a whole number from 0 to 1000000000000000";

	@ParameterizedTest
	@ValueSource(strings = { "-1", "1000000000000001", "abc", "1.5", "1e3", "0x10", "99999999999999999999999", "%D9%A3",
			"%201" })
	void anOpeningBalanceOutOfRangeIsRefused(String balance) {
		assertError(400, BALANCE_RANGE, service.send("POST", "/client/new/" + balance, null));
	}

	@ParameterizedTest
	@ValueSource(strings = { "abc", "1.0", "99999999999999999999", "%D9%A3", "1e3", "new" })
	void anIdThatIsNoIntegerIsRefused(String id) {
		assertError(400, "id must be an integer", service.get("/client/" + id + "/balance"));
	}

	@Test
	void aValidRequestReachesTheDatabase() {
		assertError(503, "database unavailable", service.send("POST", "/client/new/+7", null));
		assertError(503, "database unavailable", service.get("/client/-5/balance"));
	}

}
