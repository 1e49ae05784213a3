package bankbench.system;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.core.io.ClassPathResource;
import org.springframework.stereotype.Component;

/**
 * The SQL statements of {@code db/queries.sql}, the file the Go service embeds, in JDBC form.
 * The file is cut exactly as {@code db/db.go} cuts it, and each {@code $n} becomes {@code ?}:
 * pgjdbc turns the {@code ?} back into {@code $n}, so PostgreSQL receives the very text the Go
 * service sends.
 */
@Component
public final class Sql {

	private static final String RESOURCE = "db/queries.sql";

	private static final String MARKER = "-- name: ";

	private static final Pattern PARAMETER = Pattern.compile("\\$(\\d+)");

	private final Map<String, String> statements = new HashMap<>();

	/** Loads the statements from the classpath; the constructor Spring uses. */
	public Sql() {
		this(read(RESOURCE));
	}

	/** Parses the statements of a queries file given as text. */
	Sql(String queries) {
		parse(queries).forEach((name, sql) -> statements.put(name, toJdbc(name, sql)));
	}

	/**
	 * Returns the JDBC text of the named statement. Throws on an unknown name: repositories look
	 * their statements up when they are created, so a mismatch stops the service at start-up.
	 */
	public String statement(String name) {
		String sql = statements.get(name);
		if (sql == null) {
			throw new IllegalArgumentException("no statement \"" + name + "\" in " + RESOURCE);
		}
		return sql;
	}

	/** Splits a queries file into statements by name, as {@code db.Statements} does in Go. */
	static Map<String, String> parse(String queries) {
		Map<String, String> parsed = new HashMap<>();
		String name = null;
		StringBuilder body = new StringBuilder();
		for (String line : queries.split("\n")) {
			if (line.startsWith(MARKER)) {
				put(parsed, name, body);
				name = line.substring(MARKER.length()).strip();
				body.setLength(0);
			}
			else {
				body.append(line).append('\n');
			}
		}
		put(parsed, name, body);
		return parsed;
	}

	private static void put(Map<String, String> parsed, String name, CharSequence body) {
		// Text before the first marker (the file's header comment) belongs to no statement.
		if (name != null) {
			parsed.put(name, body.toString().strip());
		}
	}

	/**
	 * Replaces {@code $1..$n} by {@code ?}. That is only faithful when each parameter appears
	 * once and in order, and when the text has no {@code ?} of its own, so anything else throws.
	 */
	static String toJdbc(String name, String sql) {
		if (sql.indexOf('?') >= 0) {
			throw new IllegalStateException("statement " + name + " contains '?', which JDBC reads as a parameter");
		}
		Matcher parameter = PARAMETER.matcher(sql);
		StringBuilder jdbc = new StringBuilder();
		int expected = 1;
		while (parameter.find()) {
			if (!parameter.group(1).equals(Integer.toString(expected))) {
				throw new IllegalStateException("statement " + name + ": parameter " + expected + " is "
						+ parameter.group() + ", want $" + expected);
			}
			parameter.appendReplacement(jdbc, "?");
			expected++;
		}
		parameter.appendTail(jdbc);
		return jdbc.toString();
	}

	private static String read(String resource) {
		try {
			return new ClassPathResource(resource).getContentAsString(StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("cannot read " + resource + " from the classpath", ex);
		}
	}

}
