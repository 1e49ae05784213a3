"""The money check (db/money_check.sql): nothing created or lost, every balance its ledger.

See docs/api.md#data-and-sql-one-place-each."""

FIELDS = ("clients", "sum_balances", "sum_deposits", "ledger_mismatches", "negative_balances")


def verdict(figures: dict[str, int]) -> dict[str, object]:
    ok = (figures["sum_balances"] == figures["sum_deposits"]
          and figures["ledger_mismatches"] == 0 and figures["negative_balances"] == 0)
    return {"ok": ok, **figures}


def parse(row: str) -> dict[str, object]:
    """The verdict on the check's one `|`-separated row, as psql prints it."""
    return verdict(dict(zip(FIELDS, map(int, row.split("|")), strict=True)))
