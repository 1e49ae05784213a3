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

import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.transaction.CannotCreateTransactionException;

import static org.assertj.core.api.Assertions.assertThat;

class DatabaseErrorsTest {

	@ParameterizedTest
	@ValueSource(strings = { "08000", "08003", "08006", "08P01", "57P01", "57P02", "57P03", "53300" })
	void serverErrorMeansUnavailable(String sqlState) {
		assertThat(DatabaseErrors.isUnavailable(translated(serverError(sqlState)))).isTrue();
	}

	@ParameterizedTest
	@ValueSource(strings = { "23505", "23514", "40001", "40P01", "42P01", "53100", "57014", "XX000" })
	void otherServerErrorIsInternal(String sqlState) {
		assertThat(DatabaseErrors.isUnavailable(translated(serverError(sqlState)))).isFalse();
	}

	@Test
	void driverErrorWithoutServerMeansUnavailable() {
		var refused = new PSQLException("Connection refused", PSQLState.CONNECTION_UNABLE_TO_CONNECT,
				new ConnectException("Connection refused"));
		assertThat(DatabaseErrors.isUnavailable(translated(refused))).isTrue();
	}

	@Test
	void driverErrorAboutTheQueryIsInternal() {
		var badValue = new PSQLException("Bad value for type long : x", PSQLState.NUMERIC_VALUE_OUT_OF_RANGE);
		assertThat(DatabaseErrors.isUnavailable(translated(badValue))).isFalse();
		assertThat(DatabaseErrors.isUnavailable(translated(new SQLException("no state")))).isFalse();
	}

	@Test
	void ioErrorMeansUnavailable() {
		var io = new PSQLException("An I/O error occurred while sending to the backend.", PSQLState.CONNECTION_FAILURE);
		assertThat(DatabaseErrors.isUnavailable(translated(io))).isTrue();
	}

	@Test
	void poolTimeoutMeansUnavailable() {
		var timeout = new SQLTransientConnectionException("bank - Connection is not available, request timed out");
		assertThat(DatabaseErrors.isUnavailable(new CannotGetJdbcConnectionException("pool", timeout))).isTrue();
		assertThat(DatabaseErrors.isUnavailable(new CannotCreateTransactionException("begin", timeout))).isTrue();
		assertThat(DatabaseErrors.isUnavailable(new CannotGetJdbcConnectionException("no cause"))).isTrue();
	}

	@Test
	void poolTimeoutCausedByServerErrorFollowsTheServer() {
		var timeout = new SQLTransientConnectionException("pool", "08001", serverError("53300"));
		assertThat(DatabaseErrors.isUnavailable(new CannotGetJdbcConnectionException("pool", timeout))).isTrue();
		var badPassword = new SQLTransientConnectionException("pool", "08001", serverError("28P01"));
		assertThat(DatabaseErrors.isUnavailable(new CannotGetJdbcConnectionException("pool", badPassword))).isFalse();
	}

	@Test
	void failureOutsideTheDriverIsInternal() {
		assertThat(DatabaseErrors.isUnavailable(new EmptyResultDataAccessException(1))).isFalse();
	}

	private static PSQLException serverError(String sqlState) {
		return new PSQLException(new ServerErrorMessage("SERROR\0C" + sqlState + "\0Mfailed\0"));
	}

	private static UncategorizedSQLException translated(SQLException ex) {
		return new UncategorizedSQLException("statement", "SELECT 1", ex);
	}

}
