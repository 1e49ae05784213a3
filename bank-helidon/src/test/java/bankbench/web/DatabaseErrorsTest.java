package bankbench.web;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;
import org.postgresql.util.ServerErrorMessage;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DatabaseErrorsTest {

	@ParameterizedTest
	@ValueSource(strings = { "08006", "08001", "57P01", "57P02", "57P03", "53300" })
	void aServerThatCannotServeIsUnavailable(String state) {
		assertTrue(DatabaseErrors.isUnavailable(fromServer(state)));
	}

	@ParameterizedTest
	@ValueSource(strings = { "23514", "42601", "40P01", "57014" })
	void anyOtherServerErrorIsABug(String state) {
		assertFalse(DatabaseErrors.isUnavailable(fromServer(state)));
	}

	@Test
	void noPooledConnectionInTimeIsUnavailable() {
		assertTrue(DatabaseErrors.isUnavailable(new SQLTransientConnectionException("timed out")));
	}

	@Test
	void aDriverConnectionFailureIsUnavailable() {
		assertTrue(DatabaseErrors.isUnavailable(new PSQLException("I/O error", PSQLState.CONNECTION_FAILURE)));
	}

	@Test
	void theServersWordWinsOverTheWrapper() {
		SQLException wrapper = new SQLException("wrapped", "08003", fromServer("23505"));
		assertFalse(DatabaseErrors.isUnavailable(wrapper));
	}

	@Test
	void aFailureWithoutStateIsABug() {
		assertFalse(DatabaseErrors.isUnavailable(new SQLException("no row")));
	}

	private static PSQLException fromServer(String state) {
		return new PSQLException(new ServerErrorMessage("SERROR\0C" + state + "\0Mfailed\0"));
	}

}
