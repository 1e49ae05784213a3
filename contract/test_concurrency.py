"""Money under concurrent crossing transfers through the HTTP API: nothing lost, no deadlock."""

from __future__ import annotations

import random

from conftest import Api, concurrently

WORKERS = 64


def run_all(svc: Api, transfers: list[tuple[int, int, int]]) -> list[int]:
    return concurrently([svc], transfers, lambda own, t: own[0].transfer(*t).status_code, WORKERS)


def test_crossing_transfers_conserve_money(svc: Api) -> None:
    accounts = [svc.new_client(10_000) for _ in range(4)]
    rng = random.Random(42)
    transfers = []
    for i in range(200):  # A->B and B->A interleaved: deadlock-prone without a lock order
        a, b = accounts[i % 2], accounts[1 - i % 2]
        if i % 4 >= 2:
            a, b = rng.sample(accounts, 2)
        transfers.append((a, b, rng.randint(1, 40)))
    codes = run_all(svc, transfers)
    assert codes == [200] * len(transfers)  # 200 x 40 < 10,000: every transfer is covered
    expected = dict.fromkeys(accounts, 10_000)
    for src, dst, amount in transfers:
        expected[src] -= amount
        expected[dst] += amount
    assert {acc: svc.balance(acc) for acc in accounts} == expected
    assert sum(expected.values()) == 4 * 10_000


def test_concurrent_overdraft_is_refused(svc: Api) -> None:
    src, sinks = svc.new_client(100), [svc.new_client(0) for _ in range(3)]
    transfers = [(src, sinks[i % 3], 10) for i in range(60)]
    codes = run_all(svc, transfers)
    assert sorted(set(codes)) == [200, 422]
    assert codes.count(200) == 10
    assert svc.balance(src) == 0
    assert sum(svc.balance(s) for s in sinks) == 100


def test_money_check_holds(svc: Api, cluster) -> None:
    """The whole database, after every other test: balances equal ledgers, none negative."""
    from bankbench import paths
    from bankbench.bank import money

    verdict = money.parse(cluster.psql(paths.MONEY_CHECK.read_text()))
    assert verdict.ok, verdict
