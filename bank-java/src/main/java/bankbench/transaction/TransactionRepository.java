package bankbench.transaction;

import java.sql.ResultSet;
import java.sql.SQLException;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

import bankbench.client.ClientNotFoundException;
import bankbench.system.Sql;

/** Transfers in PostgreSQL, through the shared {@code transfer} statement. */
@Repository
class TransactionRepository {

	private final JdbcTemplate jdbc;

	private final String transfer = Sql.statement("transfer");

	TransactionRepository(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Moves the amount and writes the ledger row in one statement, run in autocommit (see
	 * {@code db/queries/transfer.sql}), or changes nothing and throws
	 * {@link ClientNotFoundException} or {@link InsufficientFundsException}.
	 */
	Transfer transfer(TransferRequest request) {
		long id = this.jdbc.queryForObject(this.transfer, TransactionRepository::ledgerId, request.fromClientId(),
				request.toClientId(), request.amount());
		return new Transfer(id, request.fromClientId(), request.toClientId(), request.amount());
	}

	/**
	 * The new ledger row's id from the statement's one row, or the reason there is none.
	 */
	private static long ledgerId(ResultSet row, int number) throws SQLException {
		if (!row.getBoolean("found")) {
			throw new ClientNotFoundException();
		}
		if (!row.getBoolean("funded")) {
			throw new InsufficientFundsException();
		}
		return row.getLong("id");
	}

}
