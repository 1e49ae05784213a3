"""The contention scenario's hot accounts, made on a level's fresh database.

Clients 1..N with a large balance, made in every environment alike by the services' own
create_client statement.

See docs/benchmarks.md#profiles."""

from bankbench.bank import queries
from bankbench.errors import UserError

BALANCE = 10**12  # enough that transfers among them rarely meet 422


def setup_sql(count: int) -> str:
    """One DO statement running create_client `count` times as the services do, then the ids."""
    create = queries.statement("create_client")
    return (f"DO $do$ BEGIN FOR i IN 1..{count} LOOP EXECUTE $create${create}$create$ USING {BALANCE}::bigint; "
            "END LOOP; END $do$;\n"
            "SELECT coalesce(string_agg(id::text, ',' ORDER BY id), '') FROM client;\n")


def check(printed: str, count: int) -> None:
    """Raises unless the clients are exactly 1..count, which only a fresh database gives."""
    ids = printed.strip()
    if ids != ",".join(str(i) for i in range(1, count + 1)):
        raise UserError(f"hot accounts got ids {ids[:40]!r}, expected 1..{count} on a fresh database")
