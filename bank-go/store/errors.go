package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/jackc/pgx/v5/pgconn"
)

var (
	// ErrNotFound means a client does not exist.
	ErrNotFound = errors.New("client not found")
	// ErrInsufficientFunds means the source client's balance is below the
	// amount of a transfer.
	ErrInsufficientFunds = errors.New("insufficient funds")
	// ErrUnavailable wraps the errors that mean the database cannot be
	// reached or cannot serve now: the request may succeed later.
	ErrUnavailable = errors.New("database unavailable")
)

// classify wraps err in ErrUnavailable when the database cannot serve now,
// the rule both services share: no pooled connection in time, a failure to
// reach the server or to talk to it (see unreachable), or a server error of
// SQLSTATE class 08 (connection exception), 57P01-57P03 (shutting down,
// cannot connect now) or 53300 (too many connections). Other errors, such
// as a violated constraint or a result that does not scan, are bugs: they
// are left as they are, and answered 500.
func classify(err error) error {
	if err == nil || errors.Is(err, ErrNotFound) || errors.Is(err, ErrInsufficientFunds) {
		return err
	}
	var pgErr *pgconn.PgError
	if sent := errors.As(err, &pgErr); sent && !unavailable(pgErr.Code) || !sent && !unreachable(err) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}

// unreachable reports whether err, which the server did not send, is a
// failure to get a connection or to talk over one: connecting, a network
// error, a timeout or cancellation, a connection closed under the request,
// or a query pgx could not send. pgjdbc reports the same failures with
// SQLSTATE class 08, which the Java service reads instead.
func unreachable(err error) bool {
	var netErr net.Error
	return cannotConnect(err) || pgconn.Timeout(err) || errors.Is(err, context.Canceled) ||
		errors.As(err, &netErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		pgconn.SafeToRetry(err)
}

// cannotConnect reports whether err is a failure to open a connection: the
// server refusing it (SQLSTATE 53300, too many connections), down, or
// unreachable.
func cannotConnect(err error) bool {
	var connErr *pgconn.ConnectError
	return errors.As(err, &connErr)
}

// unavailable reports whether SQLSTATE code says the server cannot serve.
func unavailable(code string) bool {
	switch code {
	case "57P01", "57P02", "57P03", "53300":
		return true
	}
	return len(code) == 5 && code[:2] == "08"
}
