// Package db carries the schema and the SQL statements shared by both bank
// services, so that the Go service embeds the very files the Java service,
// the tests and the benchmark harness read.
//
// Each statement is a file of queries/, named after it (queries/README.md
// has the rules): its whole text, trimmed of surrounding white space, is what
// both services send to PostgreSQL.
package db

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// Schema creates the tables; see schema.sql.
//
//go:embed schema.sql
var Schema string

//go:embed queries/*.sql
var queries embed.FS

// Statements returns every statement of queries/ by name.
func Statements() map[string]string {
	files, err := fs.Glob(queries, "queries/*.sql")
	if err != nil {
		panic(err) // only a malformed pattern fails, and this one is constant
	}
	stmts := make(map[string]string, len(files))
	for _, file := range files {
		name := strings.TrimSuffix(path.Base(file), ".sql")
		stmts[name] = Statement(name)
	}
	return stmts
}

// Statement returns the SQL text of the named statement, queries/<name>.sql.
// It panics on an unknown name: statements are looked up once, when a
// program initialises.
func Statement(name string) string {
	sql, err := fs.ReadFile(queries, "queries/"+name+".sql")
	if err != nil {
		panic(fmt.Sprintf("db: no statement %q: %v", name, err))
	}
	return strings.TrimSpace(string(sql))
}
