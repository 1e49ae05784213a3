-- Empties the tables of db/schema.sql and restarts their ids, the database then as the schema
-- leaves it: what a warm level starts from after its warm-up
-- (harness/bankbench/run/experiments/warmup.py).
-- A TRUNCATE waits for the transactions still open, so no request of the warm-up outlives it.
TRUNCATE transaction, client RESTART IDENTITY;
