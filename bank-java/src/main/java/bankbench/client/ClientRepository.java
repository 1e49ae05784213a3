package bankbench.client;

import java.util.OptionalLong;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.stereotype.Repository;

import bankbench.system.Sql;

/**
 * Clients in PostgreSQL, through the shared {@code create_client} and {@code balance}
 * statements.
 */
@Repository
class ClientRepository {

	private static final RowMapper<Client> CLIENT = (row, number) -> new Client(row.getLong("id"),
			row.getString("name"), row.getString("email"), row.getString("phone"), row.getLong("balance"));

	private final JdbcTemplate jdbc;

	private final String createClient = Sql.statement("create_client");

	private final String balance = Sql.statement("balance");

	ClientRepository(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Creates a client whose opening deposit, when above zero, the same statement writes
	 * in the ledger.
	 */
	Client create(long balance) {
		return this.jdbc.queryForObject(this.createClient, CLIENT, balance);
	}

	/** Returns the balance of client id, or nothing when there is no such client. */
	OptionalLong balance(long id) {
		return this.jdbc.query(this.balance,
				(rows) -> rows.next() ? OptionalLong.of(rows.getLong(1)) : OptionalLong.empty(), id);
	}

}
