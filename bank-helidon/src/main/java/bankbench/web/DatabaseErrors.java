package bankbench.web;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;

import org.postgresql.util.PSQLException;

/**
 * Tells a database that cannot serve now (503) from any other database failure (500), by
 * the rule every service shares: no pooled connection in time, a failure to reach the
 * server or to talk to it (network, timeout, closed connection), or a server error of
 * SQLSTATE class 08 (connection exception), 57P01 to 57P03 (shutting down, cannot connect
 * now) or 53300 (too many connections). Anything else, such as a violated constraint, is
 * a bug: 500.
 */
final class DatabaseErrors {

	private static final Set<String> UNAVAILABLE_STATES = Set.of("57P01", "57P02", "57P03", "53300");

	private DatabaseErrors() {
	}

	/**
	 * Reports whether a JDBC failure means the database is unavailable. The cause chain
	 * is searched for a message sent by the server, which pgjdbc attaches to a
	 * {@link PSQLException}; without one, the pool giving no connection in time
	 * (HikariCP's {@link SQLTransientConnectionException}) or a driver error of SQLSTATE
	 * class 08, which pgjdbc and HikariCP report for I/O failures, timeouts and closed
	 * connections, means the server could not be reached.
	 */
	static boolean isUnavailable(Throwable error) {
		boolean unreached = false;
		for (Throwable cause = error; cause != null; cause = cause.getCause()) {
			if (cause instanceof PSQLException psql && psql.getServerErrorMessage() != null) {
				return isUnavailableState(psql.getSQLState());
			}
			unreached |= cause instanceof SQLTransientConnectionException
					|| (cause instanceof SQLException sql && isUnavailableState(sql.getSQLState()));
		}
		return unreached;
	}

	/** Reports whether a SQLSTATE sent by the server says that it cannot serve. */
	static boolean isUnavailableState(String sqlState) {
		return sqlState != null && (sqlState.startsWith("08") || UNAVAILABLE_STATES.contains(sqlState));
	}

}
