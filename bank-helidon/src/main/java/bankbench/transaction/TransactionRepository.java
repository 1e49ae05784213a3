package bankbench.transaction;

import java.sql.ResultSet;
import java.sql.SQLException;

import javax.sql.DataSource;

import bankbench.client.ClientNotFoundException;
import bankbench.system.Jdbc;
import bankbench.system.Sql;

/** Transfers in PostgreSQL, through the shared {@code transfer} statement. */
class TransactionRepository {

	private final Jdbc jdbc;

	private final String transfer = Sql.statement("transfer");

	TransactionRepository(DataSource dataSource) {
		this.jdbc = new Jdbc(dataSource);
	}

	/**
	 * Moves the amount and writes the ledger row in one statement, run in autocommit (see
	 * {@code db/queries/transfer.sql}), or changes nothing and throws
	 * {@link ClientNotFoundException} or {@link InsufficientFundsException}.
	 */
	Transfer transfer(TransferRequest request) throws SQLException {
		long id = this.jdbc.queryRow(this.transfer, TransactionRepository::ledgerId, request.fromClientId(),
				request.toClientId(), request.amount());
		return new Transfer(id, request.fromClientId(), request.toClientId(), request.amount());
	}

	/**
	 * The new ledger row's id from the statement's one row, or the reason there is none.
	 */
	private static long ledgerId(ResultSet row) throws SQLException {
		if (!row.getBoolean("found")) {
			throw new ClientNotFoundException();
		}
		if (!row.getBoolean("funded")) {
			throw new InsufficientFundsException();
		}
		return row.getLong("id");
	}

}
