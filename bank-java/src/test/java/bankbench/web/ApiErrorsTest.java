package bankbench.web;

import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;
import org.postgresql.util.ServerErrorMessage;

import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.transaction.CannotCreateTransactionException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The 503 rule through Spring's exceptions: {@link DatabaseErrors} (java-shared/, whose
 * test has every SQLSTATE) sees through their wrapping, and Spring's own failure to get a
 * connection means unavailable.
 */
class ApiErrorsTest {

	@Test
	void serverErrorThroughSpringFollowsTheServer() {
		assertThat(ApiErrors.isDatabaseUnavailable(translated(serverError("57P01")))).isTrue();
		assertThat(ApiErrors.isDatabaseUnavailable(translated(serverError("23505")))).isFalse();
	}

	@Test
	void driverErrorWithoutServerMeansUnavailable() {
		var refused = new PSQLException("Connection refused", PSQLState.CONNECTION_UNABLE_TO_CONNECT,
				new ConnectException("Connection refused"));
		assertThat(ApiErrors.isDatabaseUnavailable(translated(refused))).isTrue();
	}

	@Test
	void driverErrorAboutTheQueryIsInternal() {
		var badValue = new PSQLException("Bad value for type long : x", PSQLState.NUMERIC_VALUE_OUT_OF_RANGE);
		assertThat(ApiErrors.isDatabaseUnavailable(translated(badValue))).isFalse();
		assertThat(ApiErrors.isDatabaseUnavailable(translated(new SQLException("no state")))).isFalse();
	}

	@Test
	void poolTimeoutMeansUnavailable() {
		var timeout = new SQLTransientConnectionException("bank - Connection is not available, request timed out");
		assertThat(ApiErrors.isDatabaseUnavailable(new CannotGetJdbcConnectionException("pool", timeout))).isTrue();
		assertThat(ApiErrors.isDatabaseUnavailable(new CannotCreateTransactionException("begin", timeout))).isTrue();
		assertThat(ApiErrors.isDatabaseUnavailable(new CannotGetJdbcConnectionException("no cause"))).isTrue();
	}

	@Test
	void poolTimeoutCausedByServerErrorFollowsTheServer() {
		var timeout = new SQLTransientConnectionException("pool", "08001", serverError("53300"));
		assertThat(ApiErrors.isDatabaseUnavailable(new CannotGetJdbcConnectionException("pool", timeout))).isTrue();
		var badPassword = new SQLTransientConnectionException("pool", "08001", serverError("28P01"));
		var refused = new CannotGetJdbcConnectionException("pool", badPassword);
		assertThat(ApiErrors.isDatabaseUnavailable(refused)).isFalse();
	}

	@Test
	void failureOutsideTheDriverIsInternal() {
		assertThat(ApiErrors.isDatabaseUnavailable(new EmptyResultDataAccessException(1))).isFalse();
	}

	private static PSQLException serverError(String sqlState) {
		return new PSQLException(new ServerErrorMessage("SERROR\0C" + sqlState + "\0Mfailed\0"));
	}

	private static UncategorizedSQLException translated(SQLException ex) {
		return new UncategorizedSQLException("statement", "SELECT 1", ex);
	}

}
