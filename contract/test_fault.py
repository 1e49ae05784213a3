"""Faults: PostgreSQL stopped under a running service, and a pool held past its timeout.

Each service gets its own cluster here, so stopping it disturbs no other test.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from bankbench.bank import processes
from bankbench.machine.postgres import Cluster

from conftest import Api, start

pytestmark = pytest.mark.hardening("faults")

QUICK_S = 8  # an answer within the acquire timeout (3 s) plus slack: never a hang


@pytest.fixture
def isolated(request: pytest.FixtureRequest) -> Iterator[tuple[Api, Cluster, processes.Running]]:
    with Cluster.create() as cluster, start(request.param, cluster, pool=1, tag="-fault") as proc:
        yield Api(request.param, proc.url), cluster, proc


def timed(call) -> tuple[httpx.Response, float]:
    t0 = time.monotonic()
    resp = call()
    return resp, time.monotonic() - t0


def test_database_down_then_back(isolated) -> None:
    api, cluster, proc = isolated
    a, b = api.new_client(100), api.new_client(0)
    cluster.stop()
    for call in (lambda: api.get("/health"), lambda: api.get(f"/client/{a}/balance"),
                 lambda: api.post("/client/new/5"), lambda: api.transfer(a, b, 1)):
        resp, took = timed(call)
        assert (resp.status_code, resp.json()["message"]) == (503, "database unavailable")
        assert took < QUICK_S, f"{resp.request.url}: {took:.1f} s"
    assert api.get("/").status_code == 200  # liveness does not need the database
    assert proc.proc.poll() is None, "the service died"

    cluster.start()
    deadline = time.monotonic() + 30
    while api.client.get("/health").status_code != 200:
        assert time.monotonic() < deadline, "no recovery within 30 s of the restart"
        time.sleep(0.5)
    assert api.transfer(a, b, 1).status_code == 200
    assert (api.balance(a), api.balance(b)) == (99, 1)


def test_pool_exhausted_answers_503(isolated) -> None:
    """With a pool of one connection held by a blocked transfer, the next request gets 503."""
    api, cluster, _ = isolated
    a, b = api.new_client(100), api.new_client(0)
    holder = cluster.psql_background(  # locks `a` for 6 s: the transfer below waits on it
        f"BEGIN; SELECT 1 FROM client WHERE id = {a} FOR UPDATE; SELECT pg_sleep(6); COMMIT;")
    time.sleep(1)
    with httpx.Client(base_url=api.client.base_url, timeout=30) as other:
        blocked = threading.Thread(target=lambda: other.post(
            "/transaction", json={"from_client_id": a, "to_client_id": b, "amount": 1}))
        blocked.start()
        time.sleep(0.5)
        resp, took = timed(lambda: api.get(f"/client/{b}/balance"))
        blocked.join()
    holder.join()
    assert (resp.status_code, resp.json()["message"]) == (503, "database unavailable")
    assert took < QUICK_S
    assert (api.balance(a), api.balance(b)) == (99, 1)  # the blocked transfer went through
