package db_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"bankbench/db"
)

// files reads the statement files from disk, apart from the embedded copy
// under test.
func files(tb testing.TB) map[string]string {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join("queries", "*.sql"))
	if err != nil {
		tb.Fatal(err)
	}
	texts := make(map[string]string, len(paths))
	for _, p := range paths {
		text, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		texts[strings.TrimSuffix(filepath.Base(p), ".sql")] = string(text)
	}
	return texts
}

// Each statement is its file's whole text, trimmed: what the Java service
// and the harness read from the same files.
func TestStatements(t *testing.T) {
	texts := files(t)
	// The statements the services run; an empty folder would pass the rest.
	got, want := slices.Sorted(maps.Keys(texts)), []string{"balance", "create_client", "health", "transfer"}
	if !slices.Equal(got, want) {
		t.Fatalf("statement files = %q, want %q", got, want)
	}
	stmts := db.Statements()
	if len(stmts) != len(texts) {
		t.Errorf("Statements() has %d statements, want %d", len(stmts), len(texts))
	}
	for name, text := range texts {
		t.Run(name, func(t *testing.T) {
			want := strings.TrimSpace(text)
			if got := db.Statement(name); got != want {
				t.Errorf("Statement(%q) = %q, want %q", name, got, want)
			}
			if got := stmts[name]; got != want {
				t.Errorf("Statements()[%q] = %q, want %q", name, got, want)
			}
		})
	}
}

func TestStatementUnknown(t *testing.T) {
	for _, name := range []string{"nope", "../schema", ""} {
		t.Run(fmt.Sprintf("%q", name), func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Statement(%q) did not panic", name)
				}
			}()
			db.Statement(name)
		})
	}
}

// The Java service swaps $n for JDBC's "?", which is only faithful when the
// parameters appear once each and in order.
func TestParametersInOrderOnce(t *testing.T) {
	param := regexp.MustCompile(`\$\d+`)
	for name, sql := range db.Statements() {
		for i, p := range param.FindAllString(sql, -1) {
			if want := fmt.Sprintf("$%d", i+1); p != want {
				t.Errorf("%s: parameter %d is %s, want %s", name, i+1, p, want)
			}
		}
	}
}
