package store

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"bankbench/db"
)

// The statements, looked up once; db.Statement panics on a missing name, so
// a name without its file in db/queries/ stops the program at start-up.
var (
	healthSQL       = db.Statement("health")
	createClientSQL = db.Statement("create_client")
	balanceSQL      = db.Statement("balance")
	transferSQL     = db.Statement("transfer")
)

// Client is a bank client.
type Client struct {
	ID      int64  `json:"id"`
	Name    string `json:"name"`
	Email   string `json:"email"`
	Phone   string `json:"phone"`
	Balance int64  `json:"balance"`
}

// Transfer is a ledger row moving Amount from one client to another.
type Transfer struct {
	ID     int64 `json:"id"`
	From   int64 `json:"from_client_id"`
	To     int64 `json:"to_client_id"`
	Amount int64 `json:"amount"`
}

// Health reports whether the database answers a trivial query.
func (s *Store) Health(ctx context.Context) error {
	return s.withConn(ctx, func(ctx context.Context, conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, healthSQL)
		return err
	})
}

// CreateClient creates a client whose opening deposit of balance, when above
// zero, is written in the ledger by the same statement.
func (s *Store) CreateClient(ctx context.Context, balance int64) (Client, error) {
	var c Client
	err := s.withConn(ctx, func(ctx context.Context, conn *pgx.Conn) error {
		return conn.QueryRow(ctx, createClientSQL, balance).
			Scan(&c.ID, &c.Name, &c.Email, &c.Phone, &c.Balance)
	})
	return c, err
}

// Balance returns the balance of client id, or ErrNotFound.
func (s *Store) Balance(ctx context.Context, id int64) (int64, error) {
	var balance int64
	err := s.withConn(ctx, func(ctx context.Context, conn *pgx.Conn) error {
		err := conn.QueryRow(ctx, balanceSQL, id).Scan(&balance)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		}
		return err
	})
	return balance, err
}

// Transfer moves amount from client from to client to and returns the
// ledger row, or ErrNotFound when either client is unknown, or
// ErrInsufficientFunds, in which case nothing changes. It is one statement
// in autocommit (see db/queries/transfer.sql). The caller checks that
// amount is positive and the clients differ.
func (s *Store) Transfer(ctx context.Context, from, to, amount int64) (Transfer, error) {
	t := Transfer{From: from, To: to, Amount: amount}
	var found, funded bool
	var id *int64
	err := s.withConn(ctx, func(ctx context.Context, conn *pgx.Conn) error {
		return conn.QueryRow(ctx, transferSQL, from, to, amount).Scan(&found, &funded, &id)
	})
	switch {
	case err != nil:
		return t, err
	case !found:
		return t, ErrNotFound
	case !funded:
		return t, ErrInsufficientFunds
	}
	t.ID = *id
	return t, nil
}
