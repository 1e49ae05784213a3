package bankbench.support;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Reads the database behind the service, to check what the API says against the ledger.
 */
public final class Ledger {

	private final JdbcTemplate jdbc;

	/** Reads through jdbc, the service's own pool. */
	public Ledger(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Returns the incoming minus the outgoing amounts of a client: its balance, by the
	 * schema's invariant.
	 */
	public long balance(long id) {
		return this.jdbc.queryForObject("""
				SELECT coalesce(sum(CASE WHEN to_client_id = ? THEN amount ELSE -amount END), 0)
				FROM transaction WHERE ? IN (from_client_id, to_client_id)""", Long.class, id, id);
	}

	/**
	 * Returns the number of ledger rows moving amount from one client to another (null:
	 * deposits).
	 */
	public int rows(Long from, long to, long amount) {
		return this.jdbc.queryForObject("""
				SELECT count(*) FROM transaction
				WHERE from_client_id IS NOT DISTINCT FROM ? AND to_client_id = ? AND amount = ?""", Integer.class, from,
				to, amount);
	}

	/** Returns whether the ledger row id moves amount from one client to another. */
	public boolean hasRow(long id, long from, long to, long amount) {
		return this.jdbc.queryForObject("""
				SELECT count(*) FROM transaction
				WHERE id = ? AND from_client_id = ? AND to_client_id = ? AND amount = ?""", Integer.class, id, from, to,
				amount) == 1;
	}

}
