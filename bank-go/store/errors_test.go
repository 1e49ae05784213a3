package store_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"bankbench/bank-go/store"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name            string
		err             error
		wantUnavailable bool
	}{
		{"network", io.ErrUnexpectedEOF, true},
		{"timeout", context.DeadlineExceeded, true},
		{"connection_exception", &pgconn.PgError{Code: "08006"}, true},
		{"connection_does_not_exist", &pgconn.PgError{Code: "08003"}, true},
		{"admin_shutdown", &pgconn.PgError{Code: "57P01"}, true},
		{"crash_shutdown", &pgconn.PgError{Code: "57P02"}, true},
		{"cannot_connect_now", &pgconn.PgError{Code: "57P03"}, true},
		{"too_many_connections", &pgconn.PgError{Code: "53300"}, true},
		{"wrapped_server_error", fmt.Errorf("query: %w", &pgconn.PgError{Code: "57P01"}), true},
		{"check_violation", &pgconn.PgError{Code: "23514"}, false},
		{"deadlock_detected", &pgconn.PgError{Code: "40P01"}, false},
		{"query_canceled", &pgconn.PgError{Code: "57014"}, false},
		{"disk_full", &pgconn.PgError{Code: "53100"}, false},
		{"connection_reset", &net.OpError{Op: "read", Err: errors.New("connection reset by peer")}, true},
		{"canceled", fmt.Errorf("query: %w", context.Canceled), true},
		{"scan_error", errors.New("can't scan into dest[0]: cannot scan text into *int64"), false},
		{"bug", fmt.Errorf("number of field descriptions must equal number of destinations"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := store.Classify(tc.err)
			if gotUnavailable := errors.Is(got, store.ErrUnavailable); gotUnavailable != tc.wantUnavailable {
				t.Errorf("Classify(%v) unavailable = %v, want %v", tc.err, gotUnavailable, tc.wantUnavailable)
			}
			if !errors.Is(got, tc.err) {
				t.Errorf("Classify(%v) = %v, lost the cause", tc.err, got)
			}
		})
	}
	for _, err := range []error{nil, store.ErrNotFound, store.ErrInsufficientFunds} {
		t.Run(fmt.Sprint(err), func(t *testing.T) {
			if got, want := store.Classify(err), err; got != want {
				t.Errorf("Classify(%v) = %v, want it unchanged", err, got)
			}
		})
	}
}
