package db_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"bankbench/db"
)

func TestStatements(t *testing.T) {
	stmts := db.Statements()
	for _, name := range []string{"health", "create_client", "balance", "lock_pair", "transfer"} {
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
