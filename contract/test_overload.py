"""Past capacity without a crash: a service with a small pool, a small heap and a small admission
limit, driven past that limit for a few seconds by a thousand clients, stays up, answers only
200, 422 or 503, each within the acquire timeout (and a margin for the clients), holds no more
requests than its limit and keeps its memory bounded.

The database is made slow on purpose: every pooled connection is held by a transfer waiting for
a row locked here, so each request the service admits waits the acquire timeout, and every
request past the limit must be refused. The arrival rate is past capacity whatever the machine,
at little CPU: a 2-core CI machine runs it in seconds. The clients speak HTTP/1.1 over keep-alive
connections from one asyncio loop (a thread each would cost more CPU than the service); each
sends again as soon as it has its answer, a refused one after waiting as its Retry-After says.
Without the limit every request waits for the pool, so the clients keep a thousand requests in
the service: java-virtual, a virtual thread each, runs out of its 96 MB heap, and java, on its
200 threads, leaves the rest in Tomcat's queue for seconds.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field

import psycopg
import pytest

from bankbench import config, registry
from bankbench.bank import processes
from bankbench.checks.connections import raise_fd_limit
from bankbench.machine import postgres
from bankbench.machine.postgres import Cluster
from bankbench.measure import scrape
from bankbench.measure.resources import Tree

from conftest import Api, start

pytestmark = pytest.mark.hardening("overload")

POOL = 2
ACQUIRE_TIMEOUT_MS = 1000
LIMIT = 50  # the admission limit: far fewer than the clients, more than the pool
HEAP_MB = 96  # as the service's registry entry sets a heap (-Xmx, GOMEMLIMIT); none without one
CLIENTS = 1000
RAMP_S = 1.0  # the clients start one after the other over this much time
FLOOD_S = 5.0  # from the first client's start to the last request sent
# How much later than the acquire timeout an answer may come: the clients share two cores with
# the service, PostgreSQL and whatever else runs (a cold JVM's first answers took 4 s on a machine
# loaded 12 times over). What this catches is far later: without the limit, java's requests wait
# in Tomcat's queue for 200 threads each held the acquire timeout, and answer 5 s late.
SLACK_S = 2.0
# How much the service's memory may grow under the flood: its heap, plus the threads, buffers
# and compiled code a thousand connections need. As resources.Tree measures it: the RSS of the
# process and the private memory of its children.
GROWTH_MB = HEAP_MB + 64
OVERLOADED = "service overloaded"  # the message of a request refused by the limit
RETRY_AFTER = "1"  # seconds (api/openapi.yaml)
WATCH_S = 0.2  # how often memory and the requests held are read during the flood


@dataclass
class Answer:
    """What one request got: its status (None: no answer, the connection failed) and, when an
    error, its message (or what failed), its Retry-After, and how long it took."""

    kind: str
    status: int | None
    message: str
    retry_after: str | None
    seconds: float
    sent_s: float  # since the flood began


@dataclass
class Watch:
    """The service's memory and requests held, read every WATCH_S during the flood."""

    rest_mb: float
    memory_mb: list[float] = field(default_factory=list)
    concurrent: list[float] = field(default_factory=list)


@pytest.fixture
def overloaded(request: pytest.FixtureRequest, cluster: Cluster,
               monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Api, Cluster, processes.Running]]:
    """The service with a pool of POOL, the acquire timeout ACQUIRE_TIMEOUT_MS, the admission limit
    LIMIT and a heap of HEAP_MB, on the shared cluster; the open-files limit of this process (and
    so of the service, which inherits it) raised for CLIENTS connections."""
    monkeypatch.setenv(config.ACQUIRE_TIMEOUT_MS, str(ACQUIRE_TIMEOUT_MS))
    entry = registry.get(request.param)
    env = {config.MAX_CONCURRENT_REQUESTS: str(LIMIT), **(entry.heap_env(HEAP_MB) if entry.heap else {})}
    raise_fd_limit(CLIENTS + 1000)
    with start(request.param, cluster, pool=POOL, tag="-overload", env=env) as proc:
        yield Api(request.param, proc.url), cluster, proc


def figures(api: Api) -> dict[str, float]:
    return scrape.values(api.get("/metrics").text, scrape.selectors(api.name))


@contextmanager
def pool_held(api: Api, cluster: Cluster, locked: int, to: int) -> Iterator[None]:
    """Every pooled connection held, until the end of the with block, by a transfer from `locked`
    waiting for its row, which a session here locks. The services abandon a database call after
    10 s: the block must end before."""
    address = api.client.base_url

    def transfer() -> None:  # http.client: no pool of its own, nothing shared between threads
        conn = http.client.HTTPConnection(address.host, address.port, timeout=60)
        try:
            conn.request("POST", "/transaction", json.dumps({"from_client_id": locked, "to_client_id": to,
                                                              "amount": 1}), {"Content-Type": "application/json"})
            conn.getresponse().read()
        finally:
            conn.close()

    senders = [threading.Thread(target=transfer, daemon=True) for _ in range(POOL)]
    with psycopg.connect(host="127.0.0.1", port=cluster.port, user=postgres.USER, dbname=postgres.DATABASE) as locker:
        locker.execute("SELECT 1 FROM client WHERE id = %s FOR UPDATE", (locked,))
        for sender in senders:
            sender.start()
        deadline = time.monotonic() + 10
        while figures(api)["pool_active"] < POOL:
            assert time.monotonic() < deadline, f"the pool is not held: {figures(api)}"
            time.sleep(0.05)
        yield
    for sender in senders:
        sender.join(30)


@contextmanager
def watching(api: Api, pid: int) -> Iterator[Watch]:
    """Reads the service's memory and its requests held every WATCH_S until the block ends."""
    tree = Tree(pid)
    watch = Watch(rest_mb=tree.sample(1.0)[1])
    stop = threading.Event()
    scraper = Api(api.name, str(api.client.base_url))  # an httpx client is not shared between threads

    def run() -> None:
        while not stop.wait(WATCH_S):
            watch.memory_mb.append(tree.sample(WATCH_S)[1])
            with suppress(Exception):  # a service that does not answer fails on other counts
                watch.concurrent.append(figures(scraper)["concurrent_requests"])

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield watch
    finally:
        stop.set()
        thread.join()
        scraper.client.close()


def requests(src: int, dst: int, empty: int) -> dict[str, bytes]:
    """The requests the clients take turns at: a balance, a transfer that can be paid (200 when
    served) and one that cannot (422)."""
    def transfer(frm: int, to: int) -> bytes:
        body = json.dumps({"from_client_id": frm, "to_client_id": to, "amount": 1}).encode()
        return (b"POST /transaction HTTP/1.1\r\nHost: bank\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    return {"balance": b"GET /client/%d/balance HTTP/1.1\r\nHost: bank\r\n\r\n" % src,
            "paid": transfer(src, dst), "unpaid": transfer(empty, src)}


async def exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                   request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Sends one request, reads its answer: status, headers (lower-case names) and body."""
    writer.write(request)
    status = int((await reader.readline()).split(b" ", 2)[1])
    headers = {}
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding") != "chunked":
        return status, headers, await reader.readexactly(int(headers.get("content-length", 0)))
    body = b""  # chunked: how Tomcat frames a body flushed before its length was known
    while size := int((await reader.readline()).split(b";")[0], 16):
        body += (await reader.readexactly(size + 2))[:-2]  # the chunk and its CRLF
    await reader.readline()
    return status, headers, body


async def flood(port: int, kinds: dict[str, bytes]) -> list[Answer]:
    """CLIENTS clients, started over RAMP_S, each sending one request after the other on its
    keep-alive connection until FLOOD_S after the flood began."""
    answers: list[Answer] = []
    began = time.monotonic()
    names = list(kinds)

    async def client(i: int) -> None:
        await asyncio.sleep(RAMP_S * i / CLIENTS)
        conn = None
        turn = i
        while (sent := time.monotonic()) < began + FLOOD_S:
            kind, turn = names[turn % len(names)], turn + 1
            try:
                if conn is None:
                    conn = await asyncio.open_connection("127.0.0.1", port)
                status, headers, body = await exchange(*conn, kinds[kind])
                message = json.loads(body).get("message", "") if status != 200 else ""
            except (OSError, ValueError, IndexError, asyncio.IncompleteReadError) as err:
                answers.append(Answer(kind, None, repr(err), None, time.monotonic() - sent, sent - began))
                if conn:
                    conn[1].close()
                conn = None
                await asyncio.sleep(0.1)
                continue
            answers.append(Answer(kind, status, message, headers.get("retry-after"), time.monotonic() - sent,
                                  sent - began))
            if headers.get("connection", "").lower() == "close":
                conn[1].close()
                conn = None
            if "retry-after" in headers:
                await asyncio.sleep(float(headers["retry-after"]))
        if conn:
            conn[1].close()

    await asyncio.gather(*(client(i) for i in range(CLIENTS)))
    return answers


def tally(answers: list[Answer]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for a in answers:
        key = f"{a.status} {a.message}".strip()
        counts[key] = counts.get(key, 0) + 1
    return counts


def test_past_the_limit_without_a_crash(overloaded: tuple[Api, Cluster, processes.Running]) -> None:
    api, cluster, proc = overloaded
    locked, src, dst, empty = (api.new_client(balance) for balance in (POOL, 1_000_000, 0, 0))
    with pool_held(api, cluster, locked, empty), watching(api, proc.pid) as watch:
        answers = asyncio.run(flood(api.client.base_url.port, requests(src, dst, empty)))

    assert proc.proc.poll() is None, f"the service died; its log ends:\n{proc.log.read_text()[-3000:]}"
    counts = tally(answers)
    wrong = [a for a in answers if a.status not in (200, 422, 503)]
    assert not wrong, f"{len(wrong)} answers other than 200, 422 or 503, first {wrong[0]}; all: {counts}"
    limit_s = ACQUIRE_TIMEOUT_MS / 1000 + SLACK_S
    late = sorted((a for a in answers if a.seconds > limit_s), key=lambda a: -a.seconds)
    assert not late, f"{len(late)} answers later than {limit_s} s, the latest {late[0]}; all: {counts}"
    refused = [a for a in answers if a.message == OVERLOADED]
    assert refused, f"never past the limit: {counts}"
    assert {(a.status, a.retry_after) for a in refused} == {(503, RETRY_AFTER)}
    assert watch.concurrent and max(watch.concurrent) <= LIMIT, watch.concurrent
    growth = max(watch.memory_mb) - watch.rest_mb
    assert growth <= GROWTH_MB, f"memory grew by {growth:.0f} MB (from {watch.rest_mb:.0f}), more than {GROWTH_MB}"

    # Still serving once the database is, and a refused transfer moved no money.
    assert api.balance(dst) == sum(a.kind == "paid" and a.status == 200 for a in answers)
    print(f"{api.name}: {len(answers)} answers {counts}; latest {max(a.seconds for a in answers):.2f} s; "
          f"held at most {max(watch.concurrent):.0f}; memory {watch.rest_mb:.0f} MB, at most "
          f"{max(watch.memory_mb):.0f} MB")
