package store

import (
	"errors"
	"fmt"

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

// classify wraps err in ErrUnavailable when the database is unreachable or
// refusing work, the rule both services share: any error that is not a
// PostgreSQL server error (network, timeout, pool), or a server error of
// SQLSTATE class 08 (connection exception), 57P01-57P03 (shutting down,
// cannot connect now) or 53300 (too many connections). Other errors, such
// as a violated constraint, are left as they are.
func classify(err error) error {
	if err == nil || errors.Is(err, ErrNotFound) || errors.Is(err, ErrInsufficientFunds) {
		return err
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && !unavailable(pgErr.Code) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}

// unavailable reports whether SQLSTATE code says the server cannot serve.
func unavailable(code string) bool {
	switch code {
	case "57P01", "57P02", "57P03", "53300":
		return true
	}
	return len(code) == 5 && code[:2] == "08"
}
