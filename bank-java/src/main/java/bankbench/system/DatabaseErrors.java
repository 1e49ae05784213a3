package bankbench.system;

import java.sql.SQLException;
import java.util.Set;

import org.postgresql.util.PSQLException;

import org.springframework.jdbc.CannotGetJdbcConnectionException;

/**
 * Tells a database that cannot serve now (503) from any other database failure (500), by the
 * rule both services share: an error that is not a PostgreSQL server error (network, timeout,
 * pool), or a server error of SQLSTATE class 08 (connection exception), 57P01 to 57P03
 * (shutting down, cannot connect now) or 53300 (too many connections).
 */
final class DatabaseErrors {

	private static final Set<String> UNAVAILABLE_STATES = Set.of("57P01", "57P02", "57P03", "53300");

	private DatabaseErrors() {
	}

	/**
	 * Reports whether a failure of the data access layer means the database is unavailable. The
	 * cause chain is searched for a message sent by the server, which pgjdbc attaches to a
	 * {@link PSQLException}; without one, a failure of the driver or of the pool (an
	 * {@link SQLException} or a {@link CannotGetJdbcConnectionException} in the chain) means
	 * the server could not be reached. Anything else is a bug, not an outage.
	 */
	static boolean isUnavailable(Throwable error) {
		boolean unreached = false;
		for (Throwable cause = error; cause != null; cause = cause.getCause()) {
			if (cause instanceof PSQLException psql && psql.getServerErrorMessage() != null) {
				return isUnavailableState(psql.getSQLState());
			}
			unreached |= cause instanceof SQLException || cause instanceof CannotGetJdbcConnectionException;
		}
		return unreached;
	}

	/** Reports whether a SQLSTATE sent by the server says that it cannot serve. */
	static boolean isUnavailableState(String sqlState) {
		return sqlState != null && (sqlState.startsWith("08") || UNAVAILABLE_STATES.contains(sqlState));
	}

}
