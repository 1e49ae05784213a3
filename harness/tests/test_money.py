"""The money check on a real PostgreSQL: it passes on consistent data and catches planted faults."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bankbench import paths
from bankbench.bank import hot, money
from bankbench.errors import UserError
from bankbench.machine.postgres import Cluster

CREATE = "WITH c AS (INSERT INTO client (balance) VALUES ({b}) RETURNING id, balance) " \
         "INSERT INTO transaction (to_client_id, amount) SELECT id, balance FROM c"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with Cluster.create() as c:
        yield c


@pytest.fixture
def db(cluster: Cluster) -> Cluster:
    cluster.reset()
    for balance in (400, 300, 5):
        cluster.psql(CREATE.format(b=balance))
    cluster.psql("BEGIN; UPDATE client SET balance = balance - 10 WHERE id = 1; "
                 "UPDATE client SET balance = balance + 10 WHERE id = 2; "
                 "INSERT INTO transaction (from_client_id, to_client_id, amount) VALUES (1, 2, 10); "
                 "COMMIT")
    return cluster


def check(cluster: Cluster) -> money.Check:
    return money.parse(cluster.psql(paths.MONEY_CHECK.read_text()))


@pytest.mark.integration
@pytest.mark.untimed
def test_consistent_data_passes(db: Cluster) -> None:
    assert check(db).document == {"ok": True, "clients": 3, "sum_balances": 705, "sum_deposits": 705,
                                  "ledger_mismatches": 0, "negative_balances": 0}


@pytest.mark.integration
@pytest.mark.untimed
def test_money_created_out_of_nothing(db: Cluster) -> None:
    db.psql("UPDATE client SET balance = balance + 1 WHERE id = 3")
    verdict = check(db)
    assert not verdict.ok
    assert (verdict.sum_balances, verdict.ledger_mismatches) == (706, 1)


@pytest.mark.integration
@pytest.mark.untimed
def test_transfer_without_ledger_row(db: Cluster) -> None:
    """Sums still agree, but two balances no longer match their ledgers."""
    db.psql("UPDATE client SET balance = balance + CASE id WHEN 1 THEN -7 ELSE 7 END "
            "WHERE id IN (1, 3)")
    verdict = check(db)
    assert (verdict.ok, verdict.sum_balances, verdict.ledger_mismatches) == (False, 705, 2)


def test_negative_balance_is_caught() -> None:
    """The schema's CHECK forbids it, so judge the verdict on figures alone."""
    figures = {"clients": 1, "sum_balances": 0, "sum_deposits": 0, "ledger_mismatches": 0,
               "negative_balances": 1}
    assert money.Check(**figures).ok is False


@pytest.mark.integration
@pytest.mark.untimed
def test_schema_refuses_negative_balance(db: Cluster) -> None:
    with pytest.raises(Exception, match="check"):
        db.psql("UPDATE client SET balance = -1 WHERE id = 3")


@pytest.mark.integration
@pytest.mark.untimed
def test_the_hot_accounts_come_from_the_services_statement_and_keep_the_books(cluster: Cluster) -> None:
    cluster.reset()
    hot.check(cluster.psql(hot.setup_sql(10)), 10)
    books = check(cluster)
    assert books.ok and (books.clients, books.sum_balances, books.sum_deposits) == (
        10, 10 * hot.BALANCE, 10 * hot.BALANCE)
    with pytest.raises(UserError, match="fresh database"):  # ids 11 and 12 now
        hot.check(cluster.psql(hot.setup_sql(2)), 2)
