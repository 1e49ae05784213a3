package bankbench.system;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SqlTest {

	@Test
	void aStatementIsItsWholeFileWithJdbcPlaceholders() throws IOException {
		String file = Files.readString(Path.of("../db/queries/balance.sql")).strip();
		assertEquals(file.replace("$1", "?"), Sql.statement("balance"));
	}

	@Test
	void everySharedStatementReads() {
		for (String name : new String[] { "balance", "create_client", "health", "transfer" }) {
			Sql.statement(name);
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "nope", "../schema", "queries/balance", "" })
	void anUnknownNameStopsTheService(String name) {
		assertThrows(IllegalArgumentException.class, () -> Sql.statement(name));
	}

	@Test
	void parametersBecomeQuestionMarksInOrder() {
		assertEquals("SELECT ?::bigint, ?", Sql.toJdbc("t", "SELECT $1::bigint, $2"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "SELECT $2, $1", "SELECT $1, $1", "SELECT '?'" })
	void whatJdbcCouldNotSayIsRefused(String sql) {
		assertThrows(IllegalStateException.class, () -> Sql.toJdbc("t", sql));
	}

}
