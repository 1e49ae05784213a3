package db_test

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"bankbench/db"
)

func TestStatements(t *testing.T) {
	stmts := db.Statements()
	for _, name := range []string{"health", "create_client", "balance", "transfer"} {
		t.Run(name, func(t *testing.T) {
			sql, ok := stmts[name]
			if !ok || sql == "" {
				t.Fatalf("statement %q missing", name)
			}
			if strings.Contains(sql, "-- name:") || strings.HasSuffix(sql, ";") {
				t.Errorf("statement %q not cut cleanly: %q", name, sql)
			}
		})
	}
	if got, want := stmts["balance"], "SELECT balance FROM client WHERE id = $1"; got != want {
		t.Errorf("balance = %q, want %q", got, want)
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

// The one parsing rule, checked on the fixture every reader shares.
func TestParseFixture(t *testing.T) {
	text, err := os.ReadFile("testdata/queries.sql")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/queries.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]string
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	got := db.Parse(string(text))
	if len(got) != len(want) {
		t.Errorf("got %d statements, want %d: %q", len(got), len(want), got)
	}
	for name, sql := range want {
		if got[name] != sql {
			t.Errorf("%s = %q, want %q", name, got[name], sql)
		}
	}
}
