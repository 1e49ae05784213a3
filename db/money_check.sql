-- The money check, run by the benchmark harness after every level (and by the tests):
-- sum of balances == sum of deposits, every balance == its ledger, none negative.
-- One row: clients, sum_balances, sum_deposits, ledger_mismatches, negative_balances.
WITH moves AS (
    SELECT to_client_id AS client_id, amount FROM transaction
    UNION ALL
    SELECT from_client_id, -amount FROM transaction WHERE from_client_id IS NOT NULL
), ledger AS (
    SELECT client_id, sum(amount) AS net FROM moves GROUP BY client_id
)
SELECT
    (SELECT count(*) FROM client) AS clients,
    (SELECT coalesce(sum(balance), 0) FROM client) AS sum_balances,
    (SELECT coalesce(sum(amount), 0) FROM transaction WHERE from_client_id IS NULL) AS sum_deposits,
    (SELECT count(*) FROM client c LEFT JOIN ledger l ON l.client_id = c.id
      WHERE c.balance <> coalesce(l.net, 0)) AS ledger_mismatches,
    (SELECT count(*) FROM client WHERE balance < 0) AS negative_balances
