package bankbench.web;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;
import java.util.function.Predicate;

import org.postgresql.util.PSQLException;

/**
 * Tells a database that cannot serve now (503) from any other database failure (500), by
 * the rule every service shares: no pooled connection in time, a failure to reach the
 * server or to talk to it (network, timeout, closed connection), or a server error of
 * SQLSTATE class 08 (connection exception), 57P01 to 57P03 (shutting down, cannot connect
 * now) or 53300 (too many connections). Anything else, such as a violated constraint or a
 * result that does not map, is a bug: 500.
 */
final class DatabaseErrors {

	private static final Set<String> UNAVAILABLE_STATES = Set.of("57P01", "57P02", "57P03", "53300");

	private DatabaseErrors() {
	}

	/**
	 * Reports whether a JDBC failure, or one that a data access layer wraps, means the
	 * database is unavailable. The cause chain is searched for a message sent by the
	 * server, which pgjdbc attaches to a {@link PSQLException}; without one, the pool
	 * giving no connection in time (HikariCP's {@link SQLTransientConnectionException})
	 * or a driver error of SQLSTATE class 08, which pgjdbc and HikariCP report for I/O
	 * failures, timeouts and closed connections, means the server could not be reached.
	 * Anything else is a bug, not an outage.
	 */
	static boolean isUnavailable(Throwable error) {
		return isUnavailable(error, (cause) -> false);
	}

	/**
	 * As {@link #isUnavailable(Throwable)}, where a cause that unreached accepts means
	 * too that the server could not be reached, unless the server's message says
	 * otherwise: a data access layer's own failure to get a connection, which may carry
	 * no {@link SQLException} (Spring's {@code CannotGetJdbcConnectionException}).
	 */
	static boolean isUnavailable(Throwable error, Predicate<Throwable> unreached) {
		boolean notReached = false;
		for (Throwable cause = error; cause != null; cause = cause.getCause()) {
			if (cause instanceof PSQLException psql && psql.getServerErrorMessage() != null) {
				return isUnavailableState(psql.getSQLState());
			}
			notReached |= cause instanceof SQLTransientConnectionException || unreached.test(cause)
					|| (cause instanceof SQLException sql && isUnavailableState(sql.getSQLState()));
		}
		return notReached;
	}

	/** Reports whether a SQLSTATE sent by the server says that it cannot serve. */
	private static boolean isUnavailableState(String sqlState) {
		return sqlState != null && (sqlState.startsWith("08") || UNAVAILABLE_STATES.contains(sqlState));
	}

}
