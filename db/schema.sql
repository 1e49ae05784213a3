-- The one schema of bankbench: both services, their tests, the benchmark harness,
-- docker compose and the cloud deployment all load this file.

-- A client stores its balance, so reading it is one primary-key lookup.
CREATE TABLE client (
    id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name    text   NOT NULL DEFAULT '',
    email   text   NOT NULL DEFAULT '',
    phone   text   NOT NULL DEFAULT '',
    balance bigint NOT NULL CHECK (balance >= 0)
);

-- Insert-only ledger. An opening deposit is a row with no source client.
-- Invariant: every balance equals its incoming minus its outgoing amounts.
CREATE TABLE transaction (
    id             bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    from_client_id bigint      REFERENCES client (id),
    to_client_id   bigint      NOT NULL REFERENCES client (id),
    amount         bigint      NOT NULL CHECK (amount > 0),
    created_at     timestamptz NOT NULL DEFAULT now(),
    CHECK (from_client_id IS DISTINCT FROM to_client_id)
);
