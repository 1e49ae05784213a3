-- A whole transfer in one statement and one round trip, run in autocommit: no
-- BEGIN/COMMIT, and the row locks last only for the statement and its commit.
-- It answers one row: found (both clients exist), funded (the source can pay)
-- and id, the new ledger row, which is NULL unless found and funded; in that
-- case nothing changed.
--
-- Why it is correct under READ COMMITTED when a concurrent transfer changed
-- the rows (PostgreSQL's row-recheck rules, "Transaction Isolation" in its
-- manual). All parts share the statement's snapshot, taken before any lock:
-- * `locked` takes both row locks in id order (the sort runs below the
--   locking step), so crossing transfers queue instead of deadlocking. A row
--   that another transfer changed is waited for if need be, then its newest
--   committed version is locked and returned, not the snapshot's: `verdict`
--   judges the funds on the current balance. MATERIALIZED keeps `locked` one
--   step that runs once, before `verdict`, `moved` and `ledger` read it.
-- * `moved` scans the snapshot's versions. On a row changed since, UPDATE
--   first computes the new row from the stale version and checks the CHECK
--   constraint on it, and only then finds the newer version (ours, locked),
--   re-checks its WHERE clause there and computes the row again. So the new
--   balance is taken from `locked`, the current value, which nobody else can
--   change until our commit: computed from the snapshot's c.balance, it could
--   break the CHECK on that first try and fail a transfer that can pay
--   (seen: one transfer in nine at 30 concurrent sessions on 4 clients).
-- * `moved` and `ledger` share the one `verdict`, so the balances move and
--   the ledger row is written together or not at all, and the CHECK on
--   client.balance still stops an overdraft if the verdict were ever wrong.
-- The crossing-transfer and concurrent-overdraft tests of both services and
-- of contract/ (test_concurrency.py, test_pool_limits.py) prove this under
-- load: exact balances, ledger equal to balances, no error.
WITH args AS (
    SELECT $1::bigint AS from_id, $2::bigint AS to_id, $3::bigint AS amount
), locked AS MATERIALIZED (
    SELECT c.id, c.balance
    FROM client c, args a
    WHERE c.id IN (a.from_id, a.to_id)
    ORDER BY c.id
    FOR UPDATE OF c
), verdict AS (
    SELECT count(*) = 2 AS found,
           coalesce(bool_or(l.id = a.from_id AND l.balance >= a.amount), false) AS funded
    FROM locked l, args a
), moved AS (
    UPDATE client c
    SET balance = l.balance + CASE WHEN l.id = a.from_id THEN -a.amount ELSE a.amount END
    FROM locked l, args a, verdict v
    WHERE c.id = l.id AND v.found AND v.funded
), ledger AS (
    INSERT INTO transaction (from_client_id, to_client_id, amount)
    SELECT a.from_id, a.to_id, a.amount
    FROM args a, verdict v
    WHERE v.found AND v.funded
    RETURNING id
)
SELECT v.found, v.funded, (SELECT id FROM ledger) AS id FROM verdict v
