package bankbench.web;

import java.net.ConnectException;
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
	@ValueSource(strings = { "08000", "08001", "08003", "08006", "08P01", "57P01", "57P02", "57P03", "53300" })
	void aServerThatCannotServeIsUnavailable(String state) {
		assertTrue(DatabaseErrors.isUnavailable(fromServer(state)));
	}

	@ParameterizedTest
	@ValueSource(strings = { "23505", "23514", "40001", "40P01", "42601", "42P01", "53100", "57014", "XX000" })
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
		var refused = new PSQLException("Connection refused", PSQLState.CONNECTION_UNABLE_TO_CONNECT,
				new ConnectException("Connection refused"));
		assertTrue(DatabaseErrors.isUnavailable(refused));
	}

	@Test
	void aDriverErrorAboutTheQueryIsABug() {
		var badValue = new PSQLException("Bad value for type long : x", PSQLState.NUMERIC_VALUE_OUT_OF_RANGE);
		assertFalse(DatabaseErrors.isUnavailable(badValue));
	}

	@Test
	void theServersWordWinsOverTheWrapper() {
		SQLException wrapper = new SQLException("wrapped", "08003", fromServer("23505"));
		assertFalse(DatabaseErrors.isUnavailable(wrapper));
		var tooMany = new SQLTransientConnectionException("pool", "08001", fromServer("53300"));
		assertTrue(DatabaseErrors.isUnavailable(tooMany));
		var badPassword = new SQLTransientConnectionException("pool", "08001", fromServer("28P01"));
		assertFalse(DatabaseErrors.isUnavailable(badPassword));
	}

	@Test
	void aFailureWithoutStateIsABug() {
		assertFalse(DatabaseErrors.isUnavailable(new SQLException("no row")));
		assertFalse(DatabaseErrors.isUnavailable(new IllegalStateException("bug")));
	}

	/**
	 * A data access layer's own failure to get a connection, which may carry no JDBC one.
	 */
	@Test
	void aFailureTheCallerNamesIsUnavailableUnlessTheServerSaysOtherwise() {
		RuntimeException noConnection = new IllegalStateException("no connection");
		assertTrue(DatabaseErrors.isUnavailable(noConnection, IllegalStateException.class::isInstance));
		RuntimeException badPassword = new IllegalStateException("no connection", fromServer("28P01"));
		assertFalse(DatabaseErrors.isUnavailable(badPassword, IllegalStateException.class::isInstance));
	}

	private static PSQLException fromServer(String state) {
		return new PSQLException(new ServerErrorMessage("SERROR\0C" + state + "\0Mfailed\0"));
	}

}
