package bankbench.system;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SqlTest {

	/**
	 * Each statement is its file's whole text, trimmed, as the Go service and the harness
	 * read it.
	 */
	@Test
	void readsEveryFileOfTheSharedFolderWhole() throws IOException {
		// Read from disk, apart from the classpath copy under test: a file Maven did not
		// copy fails. Each service's tests run from its folder, beside db/.
		Map<String, String> expected = new HashMap<>();
		try (DirectoryStream<Path> files = Files.newDirectoryStream(Path.of("..", "db", "queries"), "*.sql")) {
			for (Path file : files) {
				String name = file.getFileName().toString().replaceFirst("\\.sql$", "");
				expected.put(name, Files.readString(file).strip().replaceAll("\\$\\d+", "?"));
			}
		}
		// The statements the services run; an empty folder would pass the rest.
		assertEquals(Set.of("health", "create_client", "balance", "transfer"), expected.keySet());
		expected.forEach((name, text) -> assertEquals(text, Sql.statement(name), name));
		assertEquals("SELECT balance FROM client WHERE id = ?", Sql.statement("balance"));
	}

	@Test
	void turnsParametersIntoJdbcPlaceholders() {
		String sql = "SELECT $1::bigint, $2 WHERE x IN ($3, $4)";
		assertEquals("SELECT ?::bigint, ? WHERE x IN (?, ?)", Sql.toJdbc("t", sql));
	}

	@ParameterizedTest
	@ValueSource(strings = { "SELECT $2, $1", "SELECT $1, $1", "SELECT $10" })
	void rejectsParametersOutOfOrderOrRepeated(String sql) {
		assertThrows(IllegalStateException.class, () -> Sql.toJdbc("t", sql));
	}

	@ParameterizedTest
	@ValueSource(strings = { "SELECT '{}'::jsonb ? 'a'", "SELECT '?'" })
	void rejectsQuestionMark(String sql) {
		assertThrows(IllegalStateException.class, () -> Sql.toJdbc("t", sql));
	}

	/** An unknown name stops the service at start-up. */
	@ParameterizedTest
	@ValueSource(strings = { "nope", "../schema", "queries/balance", "" })
	void rejectsUnknownName(String name) {
		assertThrows(IllegalArgumentException.class, () -> Sql.statement(name));
	}

}
