"""The services' own defaults are the harness's: each service, started without
POSTGRES_CONNECTIONS_SIZE, POSTGRES_ACQUIRE_TIMEOUT_MS and MAX_CONCURRENT_REQUESTS, has the pool
size, the acquire timeout and the admission limit of bankbench/config.py (the harness passes the
first two explicitly). A default changed on one side only fails here.
"""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest

from bankbench import config
from bankbench.machine import postgres
from bankbench.machine.postgres import Cluster
from bankbench.measure import scrape

from conftest import Api, start

# How much later than the acquire timeout the 503 may come (two loaded cores): a default that
# moves by a second or more fails. Earlier, only by the clocks' resolution.
SLACK_S = 0.75
EARLY_S = 0.05
OPEN_WAIT_S = 30  # for the pool to open its connections (HikariCP does it after start-up)
# The services abandon a database call after 10 s: the transfers must hold their connections
# until the waiting request has had its answer.
HELD_S = 10


@pytest.fixture(scope="module")
def defaulted(request: pytest.FixtureRequest) -> Iterator[tuple[Api, Cluster]]:
    """The service on its own defaults, on a cluster of its own: its pool takes most of the
    server's max_connections."""
    with Cluster.create() as cluster, start(request.param, cluster, pool=None, tag="-defaults") as proc:
        yield Api(request.param, proc.url), cluster


def figures(api: Api) -> dict[str, float]:
    return scrape.values(api.get("/metrics").text, scrape.selectors(api.name))


def test_the_pool_size_is_the_harness_default(defaulted: tuple[Api, Cluster]) -> None:
    api, _ = defaulted
    assert figures(api)["pool_max"] == config.DEFAULT_POOL_SIZE


def test_the_admission_limit_is_the_harness_default(defaulted: tuple[Api, Cluster]) -> None:
    """As its /metrics states it: the limit at work is test_overload's."""
    api, _ = defaulted
    assert figures(api)["concurrent_requests_max"] == config.DEFAULT_MAX_CONCURRENT_REQUESTS


def test_the_acquire_timeout_is_the_harness_default(defaulted: tuple[Api, Cluster]) -> None:
    """Every pooled connection held by a transfer that waits for a locked row: the next request
    waits the acquire timeout for one, then answers 503."""
    api, cluster = defaulted
    size, timeout_s = config.DEFAULT_POOL_SIZE, config.DEFAULT_ACQUIRE_TIMEOUT_MS / 1000
    src, dst = api.new_client(size), api.new_client(0)
    address = api.client.base_url
    deadline = time.monotonic() + OPEN_WAIT_S
    while figures(api)["pool_open"] < size:
        assert time.monotonic() < deadline, f"the pool did not open: {figures(api)}"
        time.sleep(0.2)

    def transfer() -> int:  # http.client: an httpx client per thread costs too much CPU here
        conn = http.client.HTTPConnection(address.host, address.port, timeout=60)
        try:
            conn.request("POST", "/transaction", json.dumps({"from_client_id": src, "to_client_id": dst, "amount": 1}),
                         {"Content-Type": "application/json"})
            return conn.getresponse().status
        finally:
            conn.close()

    # The locker's session ends (and its transaction with it) before the executor waits for the
    # transfers, also when an assertion fails.
    with (ThreadPoolExecutor(size) as senders,
          psycopg.connect(host="127.0.0.1", port=cluster.port, user=postgres.USER, dbname=postgres.DATABASE) as locker):
        locker.execute("SELECT 1 FROM client WHERE id = %s FOR UPDATE", (src,))
        locked = time.monotonic()
        for _ in range(size):
            senders.submit(transfer)
        while figures(api)["pool_active"] < size:
            assert time.monotonic() - locked < HELD_S - timeout_s, f"not every connection busy: {figures(api)}"
            time.sleep(0.1)
        started = time.monotonic()
        resp = api.get(f"/client/{dst}/balance")
        took = time.monotonic() - started
        held = time.monotonic() - locked
    assert resp.status_code == 503 and resp.json()["message"] == "database unavailable", \
        f"{resp.text}, the transfers held the pool {held:.1f} s (more than {HELD_S} s frees a connection)"
    assert timeout_s - EARLY_S <= took < timeout_s + SLACK_S, f"{took:.2f} s, want {timeout_s} s"
