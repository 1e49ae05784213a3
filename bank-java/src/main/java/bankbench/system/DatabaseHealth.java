package bankbench.system;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/** Asks the database whether it answers, with the shared {@code health} statement. */
@Component
public class DatabaseHealth {

	private final JdbcTemplate jdbc;

	private final String health = Sql.statement("health");

	DatabaseHealth(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Runs the health statement; throws the {@link DataAccessException} when it fails.
	 */
	public void check() {
		this.jdbc.execute(this.health);
	}

}
