package bankbench.system;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class SqlTest {

	@Test
	void loadsEveryStatementOfTheSharedFile() {
		Sql sql = new Sql();
		for (String name : new String[] { "health", "create_client", "balance", "transfer" }) {
			assertThat(sql.statement(name)).isNotBlank().doesNotContain("-- name:").doesNotContain("$").doesNotEndWith(";");
		}
		assertThat(sql.statement("balance")).isEqualTo("SELECT balance FROM client WHERE id = ?");
		assertThat(sql.statement("transfer")).contains("SELECT ?::bigint AS from_id, ?::bigint AS to_id, ?::bigint AS amount");
	}

	/** The one parsing rule, checked on the fixture the Go and Python readers share. */
	@Test
	void cutsTheSharedFixtureAsEveryReaderDoes() throws IOException {
		Path testdata = Path.of("..", "db", "testdata");
		Map<String, String> expected = new JsonMapper().readValue(testdata.resolve("queries.json").toFile(),
				new TypeReference<Map<String, String>>() {
				});
		assertThat(Sql.parse(Files.readString(testdata.resolve("queries.sql")))).isEqualTo(expected);
	}

	@Test
	void cutsTheFileAsTheGoServiceDoes() {
		String queries = """
				-- header, in no statement
				-- name: first
				-- kept: comments belong to the statement
				SELECT 1

				-- name:  second \t
				SELECT 2
				""";
		assertThat(Sql.parse(queries)).isEqualTo(
				Map.of("first", "-- kept: comments belong to the statement\nSELECT 1", "second", "SELECT 2"));
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
		assertThatIllegalArgumentException().isThrownBy(() -> new Sql("-- name: a\nSELECT 1").statement("b"));
	}

}
