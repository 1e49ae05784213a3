"""The contention scenario's hot accounts: clients 1..N with a large balance, made on the fresh
database of a level before its load, in every environment alike: one SQL script, run by psql,
that runs the services' own create_client statement (db/queries/create_client.sql) N times."""

from __future__ import annotations

from bankbench.bank import queries
from bankbench.errors import UserError

BALANCE = 10**12  # enough that transfers among them rarely meet 422


def setup_sql(count: int, balance: int = BALANCE) -> str:
    """Creates the accounts in one statement (PL/pgSQL runs create_client with its parameter, as
    the services do), then prints the ids of every client, comma-separated."""
    create = queries.statement("create_client")
    return (f"DO $do$ BEGIN FOR i IN 1..{count} LOOP EXECUTE $create${create}$create$ USING {balance}::bigint; "
            "END LOOP; END $do$;\n"
            "SELECT coalesce(string_agg(id::text, ',' ORDER BY id), '') FROM client;\n")


def check(printed: str, count: int) -> None:
    """Raises unless the clients are exactly 1..count, which only a fresh database gives."""
    ids = printed.strip()
    if ids != ",".join(str(i) for i in range(1, count + 1)):
        raise UserError(f"hot accounts got ids {ids[:40]!r}, expected 1..{count} on a fresh database")
