package bankbench.transaction;

import java.util.List;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionTemplate;

import bankbench.client.ClientNotFoundException;
import bankbench.system.Sql;

/** Transfers in PostgreSQL, through the shared {@code lock_pair} and {@code transfer} statements. */
@Repository
class TransactionRepository {

	private static final RowMapper<Account> ACCOUNT = (row, number) -> new Account(row.getLong(1), row.getLong(2));

	private final JdbcTemplate jdbc;

	private final TransactionTemplate transaction;

	private final String lockPair;

	private final String transfer;

	TransactionRepository(JdbcTemplate jdbc, TransactionTemplate transaction, Sql sql) {
		this.jdbc = jdbc;
		this.transaction = transaction;
		this.lockPair = sql.statement("lock_pair");
		this.transfer = sql.statement("transfer");
	}

	/**
	 * Moves the amount and writes the ledger row in one database transaction, or changes
	 * nothing and throws {@link ClientNotFoundException} or {@link InsufficientFundsException}.
	 */
	Transfer transfer(TransferRequest request) {
		Long id = this.transaction.execute((status) -> {
			long sourceBalance = lockPair(request.fromClientId(), request.toClientId());
			if (sourceBalance < request.amount()) {
				throw new InsufficientFundsException();
			}
			return this.jdbc.queryForObject(this.transfer, Long.class, request.fromClientId(),
					request.toClientId(), request.amount());
		});
		return new Transfer(id, request.fromClientId(), request.toClientId(), request.amount());
	}

	/** Locks both clients until the end of the transaction and returns the source's balance. */
	private long lockPair(long from, long to) {
		List<Account> accounts = this.jdbc.query(this.lockPair, ACCOUNT, from, to);
		if (accounts.size() < 2) {
			throw new ClientNotFoundException();
		}
		Account first = accounts.get(0);
		return (first.id() == from) ? first.balance() : accounts.get(1).balance();
	}

	/** A row of {@code lock_pair}. */
	private record Account(long id, long balance) {
	}

}
