package bankbench.system;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class SqlTest {

	/**
	 * Each statement is its file's whole text, trimmed, as the Go service and the harness
	 * read it.
	 */
	@Test
	void readsEveryFileOfTheSharedFolderWhole() throws IOException {
		// Read from disk, apart from the classpath copy under test: a file Maven did not
		// copy fails.
		Map<String, String> expected = new HashMap<>();
		try (DirectoryStream<Path> files = Files.newDirectoryStream(Path.of("..", "db", "queries"), "*.sql")) {
			for (Path file : files) {
				String name = file.getFileName().toString().replaceFirst("\\.sql$", "");
				expected.put(name, Files.readString(file).strip().replaceAll("\\$\\d+", "?"));
			}
		}
		// The statements the services run; an empty folder would pass the rest.
		assertThat(expected).containsOnlyKeys("health", "create_client", "balance", "transfer");
		Sql sql = new Sql();
		expected.forEach((name, text) -> assertThat(sql.statement(name)).as(name).isEqualTo(text));
		assertThat(sql.statement("balance")).isEqualTo("SELECT balance FROM client WHERE id = ?");
	}

	@Test
	void turnsParametersIntoJdbcPlaceholders() {
		assertThat(Sql.toJdbc("t", "SELECT $1::bigint, $2 WHERE x IN ($3, $4)"))
			.isEqualTo("SELECT ?::bigint, ? WHERE x IN (?, ?)");
	}

	@Test
	void rejectsParametersOutOfOrderOrRepeated() {
		assertThatIllegalStateException().isThrownBy(() -> Sql.toJdbc("t", "SELECT $2, $1"));
		assertThatIllegalStateException().isThrownBy(() -> Sql.toJdbc("t", "SELECT $1, $1"));
		assertThatIllegalStateException().isThrownBy(() -> Sql.toJdbc("t", "SELECT $10"));
	}

	@Test
	void rejectsQuestionMark() {
		assertThatIllegalStateException().isThrownBy(() -> Sql.toJdbc("t", "SELECT '{}'::jsonb ? 'a'"));
	}

	@Test
	void rejectsUnknownName() {
		Sql sql = new Sql();
		for (String name : new String[] { "nope", "../schema", "" }) {
			assertThatIllegalArgumentException().as(name).isThrownBy(() -> sql.statement(name));
		}
	}

}
