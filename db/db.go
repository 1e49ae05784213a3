// Package db carries the schema and the SQL statements shared by both bank
// services, so that the Go service embeds the very files the Java service,
// the tests and the benchmark harness read.
package db

import (
	_ "embed"
	"fmt"
	"strings"
)

// Schema creates the tables; see schema.sql.
//
//go:embed schema.sql
var Schema string

//go:embed queries.sql
var queries string

const marker = "-- name: "

// Statements returns the statements of queries.sql by name.
func Statements() map[string]string {
	return Parse(queries)
}

// Parse cuts a queries file into statements by name, by the one rule every
// reader of queries.sql follows (Java's Sql.parse, Python's
// bankbench.queries.parse; testdata/queries.sql is their shared fixture): a
// line starting with "-- name: " opens a statement, which is the text up to
// the next such line, comments included, with surrounding white space
// trimmed. Text before the first marker belongs to no statement.
func Parse(queries string) map[string]string {
	stmts := make(map[string]string)
	var name string
	var body []string
	flush := func() {
		if name != "" {
			stmts[name] = strings.TrimSpace(strings.Join(body, "\n"))
		}
	}
	for line := range strings.Lines(queries) {
		if n, ok := strings.CutPrefix(line, marker); ok {
			flush()
			name, body = strings.TrimSpace(n), nil
			continue
		}
		body = append(body, strings.TrimRight(line, "\n"))
	}
	flush()
	return stmts
}

// Statement returns the SQL text of the named statement. It panics on an
// unknown name: statements are looked up once, when a program initialises.
func Statement(name string) string {
	sql, ok := Statements()[name]
	if !ok {
		panic(fmt.Sprintf("db: no statement %q in queries.sql", name))
	}
	return sql
}
