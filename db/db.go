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

// Statements parses queries.sql into a map from statement name to SQL text.
func Statements() map[string]string {
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
