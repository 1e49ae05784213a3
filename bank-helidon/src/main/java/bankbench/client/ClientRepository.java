package bankbench.client;

import java.sql.SQLException;
import java.util.OptionalLong;

import javax.sql.DataSource;

import bankbench.system.Jdbc;
import bankbench.system.Sql;

/**
 * Clients in PostgreSQL, through the shared {@code create_client} and {@code balance}
 * statements.
 */
class ClientRepository {

	private final Jdbc jdbc;

	private final String createClient = Sql.statement("create_client");

	private final String balance = Sql.statement("balance");

	ClientRepository(DataSource dataSource) {
		this.jdbc = new Jdbc(dataSource);
	}

	/**
	 * Creates a client whose opening deposit, when above zero, the same statement writes
	 * in the ledger.
	 */
	Client create(long balance) throws SQLException {
		return this.jdbc.queryRow(this.createClient, (row) -> new Client(row.getLong("id"), row.getString("name"),
				row.getString("email"), row.getString("phone"), row.getLong("balance")), balance);
	}

	/** Returns the balance of client id, or nothing when there is no such client. */
	OptionalLong balance(long id) throws SQLException {
		return this.jdbc.query(this.balance,
				(rows) -> rows.next() ? OptionalLong.of(rows.getLong(1)) : OptionalLong.empty(), id);
	}

}
