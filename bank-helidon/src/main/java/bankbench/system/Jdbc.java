package bankbench.system;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

/**
 * The two calls of Spring's {@code JdbcTemplate} that bank-java's repositories make, on
 * plain JDBC and with the same JDBC calls: a pooled connection per statement, in
 * autocommit, so every request is one statement, one round trip and one transaction, as
 * in the other services ({@code make verify} counts them).
 */
public final class Jdbc {

	/** Reads the rows of a query; the statement and connection close after it. */
	@FunctionalInterface
	public interface Rows<T> {

		T read(ResultSet rows) throws SQLException;

	}

	private final DataSource dataSource;

	public Jdbc(DataSource dataSource) {
		this.dataSource = dataSource;
	}

	/**
	 * Runs a prepared query with its 64-bit integer parameters, in order, and returns
	 * what reader makes of its rows.
	 */
	public <T> T query(String sql, Rows<T> reader, long... parameters) throws SQLException {
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			for (int i = 0; i < parameters.length; i++) {
				statement.setLong(i + 1, parameters[i]);
			}
			try (ResultSet rows = statement.executeQuery()) {
				return reader.read(rows);
			}
		}
	}

	/**
	 * Runs a query that answers exactly one row, and returns what reader makes of it; a
	 * query that answers none fails (a bug: 500).
	 */
	public <T> T queryRow(String sql, Rows<T> reader, long... parameters) throws SQLException {
		return query(sql, (rows) -> {
			if (!rows.next()) {
				throw new SQLException("no row from: " + sql);
			}
			return reader.read(rows);
		}, parameters);
	}

	/**
	 * Runs a statement without parameters as a plain {@link Statement}, as
	 * {@code JdbcTemplate.execute(String)} does.
	 */
	public void execute(String sql) throws SQLException {
		try (Connection connection = this.dataSource.getConnection();
				Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
	}

}
