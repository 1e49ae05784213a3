package bankbench.system;

import java.sql.SQLException;

import javax.sql.DataSource;

/** Asks the database whether it answers, with the shared {@code health} statement. */
public final class DatabaseHealth {

	private final Jdbc jdbc;

	private final String health = Sql.statement("health");

	public DatabaseHealth(DataSource dataSource) {
		this.jdbc = new Jdbc(dataSource);
	}

	/** Runs the health statement; throws the {@link SQLException} when it fails. */
	public void check() throws SQLException {
		this.jdbc.execute(this.health);
	}

}
