package bankbench.system;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The SQL statements of {@code db/queries/}, the files the Go service embeds, in JDBC
 * form. A statement is the whole text of its file {@code <name>.sql}, trimmed, as
 * {@code db.Statement} reads it in Go, and each {@code $n} becomes {@code ?}: pgjdbc
 * turns the {@code ?} back into {@code $n}, so PostgreSQL receives the very text the Go
 * service sends. Each service's pom puts {@code db/} on its classpath.
 */
public final class Sql {

	private static final String FOLDER = "db/queries/";

	/**
	 * A name is a file's stem: nothing that could lead out of the folder ("../schema").
	 */
	private static final Pattern NAME = Pattern.compile("\\w+");

	private static final Pattern PARAMETER = Pattern.compile("\\$(\\d+)");

	private Sql() {
	}

	/**
	 * Returns the JDBC text of the named statement. Throws on an unknown name:
	 * repositories look their statements up when they are created, so a mismatch stops
	 * the service at start-up.
	 */
	public static String statement(String name) {
		String path = FOLDER + name + ".sql";
		try (InputStream file = NAME.matcher(name).matches() ? Sql.class.getClassLoader().getResourceAsStream(path)
				: null) {
			if (file == null) {
				throw new IllegalArgumentException("no statement \"" + name + "\": no " + path + " on the classpath");
			}
			return toJdbc(name, new String(file.readAllBytes(), StandardCharsets.UTF_8).strip());
		}
		catch (IOException ex) {
			throw new UncheckedIOException("cannot read " + path + " from the classpath", ex);
		}
	}

	/**
	 * Replaces {@code $1..$n} by {@code ?}. That is only faithful when each parameter
	 * appears once and in order, and when the text has no {@code ?} of its own, so
	 * anything else throws.
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

}
