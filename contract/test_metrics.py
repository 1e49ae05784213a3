"""GET /metrics: every series of api/metrics.yaml on every service, under the names of its registry
entry, and the series move as the service works (a request counts once; in the hardening tier, a
held pool shows its waiter and its timeout, and a request its client abandoned is no 503)."""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Iterator

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bankbench import config
from bankbench.machine.postgres import Cluster
from bankbench.measure import scrape

from conftest import Api, start

ACQUIRE_TIMEOUT_MS = 1500
HOLD_S = 4  # how long the lock that pins the only pooled connection is held


def samples(api: Api) -> dict[tuple[str, frozenset], float]:
    resp = api.get("/metrics")
    assert resp.status_code == 200
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(resp.text) for s in family.samples}


def figures(api: Api) -> dict[str, float]:
    return scrape.values(api.get("/metrics").text, scrape.selectors(api.name))


def requests_of(api: Api, uri: str, status: str, method: str = "GET") -> float:
    return sum(value for (name, labels), value in samples(api).items()
               if name == "http_server_requests_seconds_count"
               and {("uri", uri), ("status", status), ("method", method)} <= labels)


def test_every_documented_series_exists(svc: Api) -> None:
    svc.get(f"/client/{svc.new_client(5)}/balance")  # request series exist once one is served
    got = figures(svc)
    assert set(scrape.selectors(svc.name)) <= set(got), set(scrape.selectors(svc.name)) - set(got)
    # conftest.POOL; HikariCP opens the connections in the background after start-up.
    deadline = time.monotonic() + 10
    while got["pool_open"] < 10 and time.monotonic() < deadline:
        time.sleep(0.2)
        got = figures(svc)
    assert got["pool_max"] == got["pool_open"] == 10


def test_a_request_counts_once_under_its_route(svc: Api) -> None:
    client = svc.new_client(5)
    before = requests_of(svc, "/client/{id}/balance", "200")
    svc.get(f"/client/{client}/balance")
    assert requests_of(svc, "/client/{id}/balance", "200") == before + 1
    before = requests_of(svc, "NOT_FOUND", "404")
    svc.get("/no/such/path")
    assert requests_of(svc, "NOT_FOUND", "404") == before + 1


def test_the_request_histogram_has_the_same_buckets_everywhere(apis: list[Api]) -> None:
    def buckets(api: Api) -> set[float]:
        return {float(dict(labels)["le"]) for (name, labels), _ in samples(api).items()
                if name == "http_server_requests_seconds_bucket"}
    assert len({frozenset(buckets(api)) for api in apis}) == 1


@pytest.fixture
def held(request: pytest.FixtureRequest, cluster: Cluster,
         monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Api, Cluster]]:
    """A service with a pool of one connection on the shared cluster."""
    monkeypatch.setenv(config.ACQUIRE_TIMEOUT_MS, str(ACQUIRE_TIMEOUT_MS))
    with start(request.param, cluster, pool=1, tag="-held") as proc:
        yield Api(request.param, proc.url), cluster


@pytest.mark.hardening("pool-limits")
def test_a_held_pool_shows_its_waiter_and_its_timeout(held: tuple[Api, Cluster]) -> None:
    api, cluster = held
    src, dst = api.new_client(100), api.new_client(0)
    before = figures(api)
    # A session outside the service locks the source client: the service's transfer then holds
    # its only connection until the lock goes, and the next request has to wait for one.
    locker = cluster.psql_background(
        f"BEGIN; SELECT 1 FROM client WHERE id = {src} FOR UPDATE; SELECT pg_sleep({HOLD_S}); COMMIT")
    time.sleep(0.5)
    answers: dict[str, int] = {}
    transfer = threading.Thread(target=lambda: answers.setdefault(
        "transfer", Api(api.name, str(api.client.base_url)).transfer(src, dst, 1).status_code))
    transfer.start()
    time.sleep(0.5)
    waiter = threading.Thread(target=lambda: answers.setdefault(
        "balance", Api(api.name, str(api.client.base_url)).get(f"/client/{dst}/balance").status_code))
    waiter.start()
    seen = []
    deadline = time.monotonic() + ACQUIRE_TIMEOUT_MS / 1000
    while time.monotonic() < deadline and not (seen and seen[-1]["pool_pending"] >= 1):
        seen.append(figures(api))
    assert seen[-1]["pool_pending"] >= 1 and seen[-1]["pool_active"] == 1, seen[-1]
    waiter.join()
    assert answers["balance"] == 503  # no connection within the acquire timeout
    assert figures(api)["pool_timeouts"] == before["pool_timeouts"] + 1
    locker.join()
    transfer.join()
    assert answers["transfer"] == 200
    after = figures(api)
    assert after["pool_pending"] == 0
    assert after["pool_acquires"] >= before["pool_acquires"] + 1
    assert after["pool_acquire_seconds"] > before["pool_acquire_seconds"]


@pytest.mark.hardening("overload")
def test_a_request_its_client_abandoned_is_no_503(held: tuple[Api, Cluster]) -> None:
    """A client resets its connection while its request waits for the held pool: the service
    cannot answer it, so it counts it under 499 (nginx's status), not as the 503 nobody read.
    Every service sees a reset, when it writes the answer if not before; a client that closes
    its connection normally only the Go service sees (api/metrics.md)."""
    api, cluster = held
    src, dst = api.new_client(100), api.new_client(0)
    route = "/client/{id}/balance"
    before = {status: requests_of(api, route, status) for status in ("499", "503")}
    locker = cluster.psql_background(
        f"BEGIN; SELECT 1 FROM client WHERE id = {src} FOR UPDATE; SELECT pg_sleep({HOLD_S}); COMMIT")
    time.sleep(0.5)
    sender = Api(api.name, str(api.client.base_url))  # an httpx client of its own for the thread
    transfer = threading.Thread(target=lambda: sender.transfer(src, dst, 1))
    transfer.start()
    deadline = time.monotonic() + HOLD_S / 2
    while figures(api)["pool_active"] < 1:
        assert time.monotonic() < deadline, f"the transfer does not hold the pool: {figures(api)}"
        time.sleep(0.05)
    address = api.client.base_url
    with socket.create_connection((address.host, address.port)) as conn:
        conn.sendall(f"GET /client/{dst}/balance HTTP/1.1\r\nHost: bank\r\n\r\n".encode())
        deadline = time.monotonic() + ACQUIRE_TIMEOUT_MS / 1000
        while figures(api)["pool_pending"] < 1:
            assert time.monotonic() < deadline, f"the request does not wait for the pool: {figures(api)}"
            time.sleep(0.05)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close sends a reset
    deadline = time.monotonic() + ACQUIRE_TIMEOUT_MS / 1000 + 5
    while requests_of(api, route, "499") == before["499"]:
        assert time.monotonic() < deadline, \
            f"not counted as 499: {({status: requests_of(api, route, status) - n for status, n in before.items()})}"
        time.sleep(0.1)
    assert requests_of(api, route, "499") == before["499"] + 1
    assert requests_of(api, route, "503") == before["503"]
    locker.join()
    transfer.join()
    sender.client.close()
