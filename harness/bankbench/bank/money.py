"""The money check (db/money_check.sql): nothing created or lost, every balance its ledger.

See docs/api.md#data-and-sql-one-place-each."""

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

FIELDS = ("clients", "sum_balances", "sum_deposits", "ledger_mismatches", "negative_balances")


@dataclass(frozen=True)
class Check:
    """The check's figures, in the order of its row (FIELDS), and its verdict (`ok`)."""

    clients: int
    sum_balances: int
    sum_deposits: int
    ledger_mismatches: int
    negative_balances: int

    @property
    def ok(self) -> bool:
        """Money conserved: the balances sum to the deposits, each matches its ledger, none below 0."""
        return (self.sum_balances == self.sum_deposits
                and self.ledger_mismatches == 0 and self.negative_balances == 0)

    @property
    def figures(self) -> dict[str, int]:
        return asdict(self)

    @property
    def document(self) -> dict[str, Any]:
        """As money.json holds it: `ok`, then the figures."""
        return {"ok": self.ok, **self.figures}

    @classmethod
    def of(cls, document: Mapping[str, Any]) -> "Check":
        """A check from its document (money.json; `ok` is the figures' and read from them)."""
        return cls(**{name: int(document[name]) for name in FIELDS})


def parse(row: str) -> Check:
    """The check's one `|`-separated row, as psql prints it."""
    return Check(*map(int, row.split("|")))
