"""The pool at the server's limit: requests wait for a pooled connection, as HikariCP makes them,
and never fail because the server refused to open one more.

Each test gets a cluster of its own whose max_connections is below what the pools ask for: a
pool larger than the server allows, and all services sharing one database at once.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from bankbench.machine.postgres import Cluster

from conftest import Api, concurrently, serving, start

pytestmark = pytest.mark.hardening("pool-limits")

MAX_CONNECTIONS = 20
WORKERS = 64
TRANSFERS = 600


def crossing_transfers(apis: list[Api]) -> None:
    """Concurrent transfers among four accounts through every api in turn; all must succeed,
    and the money must be where the transfers put it."""
    accounts = [apis[0].new_client(10_000) for _ in range(4)]
    rng = random.Random(7)
    transfers = [(i % len(apis), *rng.sample(accounts, 2), rng.randint(1, 10))
                 for i in range(TRANSFERS)]
    codes = concurrently(apis, transfers, lambda own, t: own[t[0]].transfer(*t[1:]).status_code, WORKERS)
    assert {code: codes.count(code) for code in set(codes)} == {200: TRANSFERS}
    expected = dict.fromkeys(accounts, 10_000)
    for _, src, dst, amount in transfers:
        expected[src] -= amount
        expected[dst] += amount
    assert {acc: apis[-1].balance(acc) for acc in accounts} == expected


@pytest.fixture
def crowded(request: pytest.FixtureRequest) -> Iterator[Api]:
    """The service with a pool of 30 on a cluster of its own with max_connections 20."""
    with start(request.param, None, pool=MAX_CONNECTIONS + 10, tag="-crowded",
               max_connections=MAX_CONNECTIONS) as proc:
        yield Api(request.param, proc.url)


def test_pool_larger_than_server_allows(crowded: Api) -> None:
    """A pool of 30 against max_connections 20: the connections the server refuses are not
    errors, the requests wait for the ones the pool has."""
    crossing_transfers([crowded])


def test_services_share_one_database(request: pytest.FixtureRequest) -> None:
    """Every service at once on one database, their pools together 20 % above max_connections:
    the last one started gets fewer connections than its pool size, but never none."""
    names = serving(request.config, request.node)
    pool = math.ceil(1.2 * MAX_CONNECTIONS / len(names))
    with Cluster.create(max_connections=MAX_CONNECTIONS) as cluster, ExitStack() as stack:
        started = [stack.enter_context(start(name, cluster, pool=pool, tag="-shared")) for name in names]
        crossing_transfers([Api(p.service.name, p.url) for p in started])
