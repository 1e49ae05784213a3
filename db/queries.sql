-- Every SQL statement the bank services run, used verbatim by both of them.
-- Each statement follows a "-- name: <name>" line; the text up to the next
-- such line is the statement (comments included, no trailing semicolon).
-- Parameters are $1..$n in order of appearance, each used once: JDBC's "?"
-- placeholders then map onto them one to one, and PostgreSQL receives the same
-- statement text from both services.

-- name: health
SELECT 1

-- name: create_client
-- One statement: the client and its opening deposit appear together or not at all.
WITH new_client AS (
    INSERT INTO client (balance) VALUES ($1)
    RETURNING id, name, email, phone, balance
), deposit AS (
    INSERT INTO transaction (to_client_id, amount)
    SELECT id, balance FROM new_client WHERE balance > 0
)
SELECT id, name, email, phone, balance FROM new_client

-- name: balance
SELECT balance FROM client WHERE id = $1

-- name: lock_pair
-- First statement of a transfer. Locks both clients in id order, so crossing
-- transfers (A->B with B->A) queue behind each other instead of deadlocking.
SELECT id, balance FROM client WHERE id IN ($1, $2) ORDER BY id FOR UPDATE

-- name: transfer
-- Second statement of a transfer, once lock_pair found both clients and enough
-- funds: moves the amount and writes the ledger row.
WITH args AS (
    SELECT $1::bigint AS from_id, $2::bigint AS to_id, $3::bigint AS amount
), moved AS (
    UPDATE client c
    SET balance = c.balance + CASE WHEN c.id = a.from_id THEN -a.amount ELSE a.amount END
    FROM args a
    WHERE c.id IN (a.from_id, a.to_id)
)
INSERT INTO transaction (from_client_id, to_client_id, amount)
SELECT from_id, to_id, amount FROM args
RETURNING id
