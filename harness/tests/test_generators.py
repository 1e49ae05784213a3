"""JMeter and Gatling run the same scenario: the same requests, the same extracted values in them,
the same assertions (issue 34). Each generator runs the open model as the harness starts it
(bankbench.load.generators.start, with a real open-model level's load properties: 5
iterations/s for 3 s, 2 s of drain) against a stub of the bank API served by this test, which
answers as the services do (api/openapi.yaml), keeps the balances, and records every request.

A request is recorded as a template, free of the ids of one run: its method, its path and JSON
body with each client id replaced by the client's role, and its Content-Type. Roles: "this
iteration's 400-client" (the client this iteration, that is this connection, created with a
balance of 400: both generators open one keep-alive connection per iteration), "another
iteration's 300-client", "hot account" (the contention scenario's accounts 1..hot_accounts, made
before the load as bankbench.bank.hot makes them), "the source account", "not an id: 'missing'".
Every iteration must give the same sequence, so one iteration's (label, template, response code,
success) rows are the generator's scenario; the two generators' must be equal.

The stub answers right, or in one of three wrong ways, so that each assertion of the plan is made
to fail somewhere: balances one too many and transfers failing with 500 ("wrong"), transfers
refused with 422 ("insufficient_funds": a right answer under contention, a failure under
rematch, as bank.jmx says), creates and balance reads answered 503 ("unavailable"). The
generators must mark the same requests failed, and send nothing more in an iteration after its
first failure. EXPECTED_SUCCESS says which, from reading bank.jmx; EXPECTED_REQUESTS the requests
of a right run.

The runs are small (15 iterations each, a few seconds after the JVM's start) and each is killed
after RUN_TIMEOUT_S. Skipped only when a generator is not installed (`make jmeter-install
gatling-install`); CI installs both."""

from __future__ import annotations

import collections
import itertools
import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from bankbench.bank import hot
from bankbench.errors import UserError
from bankbench.load import gatling, generators, jmeter, profiles
from bankbench.results import histograms

# The phase test measures start times, so it runs alone (timed); the scenario duel need not.
pytestmark = pytest.mark.integration

RATE, ARRIVALS_S, DRAIN_S = 5, 3, 2  # 15 iterations a run
HOT_ACCOUNTS = 3  # not the plan's default 10: the property must reach the generator
RUN_TIMEOUT_S = 90  # a run takes 5-10 s here, most of it the JVM's start


@dataclass(frozen=True)
class Answers:
    """How the stub departs from the service: balances answered (creates and reads) `offset` too
    high; creates, balance reads or transfers answered with an error status (transfers then move
    nothing)."""

    offset: int = 0
    create_status: int | None = None
    balance_status: int | None = None
    transfer_status: int | None = None


VARIANTS = {
    "right": Answers(),
    "wrong": Answers(offset=1, transfer_status=500),
    "insufficient_funds": Answers(transfer_status=422),
    "unavailable": Answers(create_status=503, balance_status=503),
}
MESSAGES = {422: "insufficient funds", 500: "internal error", 503: "service unavailable"}

# What bank.jmx asks and asserts (gatling/README.md, "Mapping to bank.jmx"): the requests of an
# iteration against the right stub, as templates (method, path, body, Content-Type).
JSON = "application/json"
A, B = "this iteration's 400-client", "this iteration's 300-client"
EXPECTED_REQUESTS = {
    "rematch": [
        ("create client", ("POST", "/client/new/400", None, JSON)),
        ("create client", ("POST", "/client/new/300", None, JSON)),
        ("balance", ("GET", f"/client/{{{A}}}/balance", None, JSON)),
        ("balance", ("GET", f"/client/{{{B}}}/balance", None, JSON)),
        ("transaction", ("POST", "/transaction",
                         (("amount", 10), ("from_client_id", A), ("to_client_id", B)), JSON)),
        ("balance", ("GET", f"/client/{{{A}}}/balance", None, JSON)),
        ("balance", ("GET", f"/client/{{{B}}}/balance", None, JSON)),
    ],
    "contention": [
        ("transaction", ("POST", "/transaction", (("amount", "1..100"), ("from_client_id", "hot account"),
                                                  ("to_client_id", "another hot account")), JSON)),
        ("balance", ("GET", "/client/{hot account}/balance", None, JSON)),
    ],
}
# Which requests of an iteration succeed, per stub: the plan's assertions (JSON balances in
# rematch; 2xx, or 200|422 for contention's transfer).
# An iteration ends at its first failure (on_sample_error=stopthread), so its later requests
# are not sent.
EXPECTED_SUCCESS = {
    ("rematch", "right"): [True] * 7,
    ("rematch", "wrong"): [False],  # the first create's balance assertion
    ("rematch", "insufficient_funds"): [True] * 4 + [False],  # the transfer's 422
    ("rematch", "unavailable"): [False],  # the first create's 503
    ("contention", "right"): [True, True],
    ("contention", "wrong"): [False],  # the transfer's 500
    ("contention", "insufficient_funds"): [True, True],  # 422 is a right answer here
    ("contention", "unavailable"): [True, False],
}


# --- the stub of the bank API -----------------------------------------------------------------------

@dataclass
class Client:
    balance: int
    opened_with: int
    connection: int | None  # None: a hot account, made before the load


@dataclass(frozen=True)
class Request:
    """One request as the stub saw it: its template (ids as roles) and the values it sent."""

    connection: int
    method: str
    path: str
    body: tuple | str | None  # sorted (field, role or value) pairs; the text when not a JSON object
    content_type: str | None
    raw: dict[str, Any]  # the ids and amount sent: "path" (a balance read's), "from_client_id", ...


@dataclass
class Bank:
    """The service's state and answers (api/openapi.yaml), as `answers` bends them, and every
    request it was sent, in order."""

    answers: Answers
    clients: dict[int, Client] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    connections: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    ledger: int = 0

    def open(self, balance: int, connection: int | None) -> int:
        client_id = len(self.clients) + 1
        self.clients[client_id] = Client(balance, balance, connection)
        return client_id

    def role(self, value: Any, connection: int) -> str:
        if isinstance(value, str) and re.fullmatch(r"-?\d+", value):
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            return f"not an id: {value!r}"
        client = self.clients.get(value)
        if client is None:
            return "unknown id"
        if client.connection is None:
            return "hot account"
        whose = "this iteration's" if client.connection == connection else "another iteration's"
        return f"{whose} {client.opened_with}-client"

    def serve(self, method: str, path: str, body: bytes, content_type: str | None,
              connection: int) -> tuple[int, dict]:
        """Records the request, then answers it: (status, JSON document)."""
        with self.lock:
            text = body.decode(errors="replace")
            raw: dict[str, Any] = {}
            template_path, template_body = path, None
            if match := re.fullmatch(r"/client/([^/]+)/balance", path):
                raw["path"] = match[1]
                template_path = f"/client/{{{self.role(match[1], connection)}}}/balance"
            if text:
                try:
                    document = json.loads(text)
                except ValueError:
                    document = None
                if isinstance(document, dict):
                    raw = {key: document.get(key) for key in ("from_client_id", "to_client_id", "amount")}
                    roles = {key: self.role(raw[key], connection) for key in ("from_client_id", "to_client_id")}
                    if roles["to_client_id"] == roles["from_client_id"] == "hot account":
                        same = raw["to_client_id"] == raw["from_client_id"]
                        roles["to_client_id"] = "the source account" if same else "another hot account"
                    template_body = tuple(sorted({**document, **roles}.items()))
                else:
                    template_body = text
            self.requests.append(Request(connection, method, template_path, template_body, content_type, raw))
            return self.answer(method, path, text, connection)

    def answer(self, method: str, path: str, text: str, connection: int) -> tuple[int, dict]:
        wrong = self.answers
        if method == "POST" and (match := re.fullmatch(r"/client/new/(\d+)", path)):
            if wrong.create_status:
                return error(wrong.create_status)
            balance = int(match[1])
            client_id = self.open(balance, connection)
            return 200, {"id": client_id, "name": "", "email": "", "phone": "", "balance": balance + wrong.offset}
        if method == "GET" and (match := re.fullmatch(r"/client/([^/]+)/balance", path)):
            if wrong.balance_status:
                return error(wrong.balance_status)
            if not re.fullmatch(r"[+-]?\d+", match[1]):
                return error(400, "id must be an integer")
            client = self.clients.get(int(match[1]))
            if client is None:
                return error(404, "client not found")
            return 200, {"balance": client.balance + wrong.offset}
        if method == "POST" and path == "/transaction":
            return self.transfer(text)
        return error(404, "not found")

    def transfer(self, text: str) -> tuple[int, dict]:
        try:
            document = json.loads(text)
        except ValueError:
            document = None
        if not isinstance(document, dict):
            return error(400, "request body must be a JSON object")
        for key in ("from_client_id", "to_client_id", "amount"):
            if not isinstance(document.get(key), int) or isinstance(document[key], bool):
                return error(400, f"{key} must be an integer")
        source, target, amount = document["from_client_id"], document["to_client_id"], document["amount"]
        if not 1 <= amount <= 10**15:
            return error(400, "amount must be from 1 to 1000000000000000")
        if source == target:
            return error(400, "from_client_id and to_client_id must differ")
        if source not in self.clients or target not in self.clients:
            return error(404, "client not found")
        if self.answers.transfer_status:
            return error(self.answers.transfer_status)
        if self.clients[source].balance < amount:
            return error(422, "insufficient funds")
        self.clients[source].balance -= amount
        self.clients[target].balance += amount
        self.ledger += 1
        return 200, {"id": self.ledger, "from_client_id": source, "to_client_id": target, "amount": amount}


def error(status: int, message: str | None = None) -> tuple[int, dict]:
    return status, {"status": "Error", "message": message or MESSAGES[status]}


class Handler(BaseHTTPRequestHandler):
    """One connection: HTTP/1.1 keep-alive, so that it serves an iteration's requests in turn."""

    protocol_version = "HTTP/1.1"
    server: Stub

    def setup(self) -> None:
        super().setup()
        self.connection_id = next(self.server.bank.connections)

    def do_GET(self) -> None:
        self.serve()

    def do_POST(self) -> None:
        self.serve()

    def serve(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        status, document = self.server.bank.serve(self.command, self.path, body, self.headers.get("Content-Type"),
                                                  self.connection_id)
        payload = json.dumps(document, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


class Stub(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, bank: Bank):
        super().__init__(("127.0.0.1", 0), Handler)
        self.bank = bank


@contextmanager
def stub(answers: Answers, hot_accounts: int) -> Iterator[Stub]:
    """The bank API on a free port, with clients 1..hot_accounts made first (bankbench.bank.hot)."""
    bank = Bank(answers)
    for _ in range(hot_accounts):
        bank.open(hot.BALANCE, None)
    server = Stub(bank)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


# --- the generators' runs -------------------------------------------------------------------------

@pytest.fixture(scope="module", autouse=True)
def installed() -> None:
    try:
        jmeter.installation()
        gatling.classpath()
    except UserError as err:
        pytest.skip(f"a load generator is not installed: {err}")


def load_properties(scenario: str) -> dict[str, Any]:
    """What the harness passes to the generator for a small open-model level of `scenario`."""
    profile = profiles.load("open", {"users": [RATE], "warmup_s": 0, "duration_s": ARRIVALS_S, "think_ms": 0,
                                     "scenario": scenario, "hot_accounts": HOT_ACCOUNTS})
    properties = {**profiles.levels(profile)[0].load_properties(), "drain_s": DRAIN_S}
    assert properties == {"think_ms": 0, "scenario": scenario, "hot_accounts": HOT_ACCOUNTS, "users": 0,
                          "rate": RATE, "arrivals_s": ARRIVALS_S, "drain_s": DRAIN_S}
    return properties


@dataclass
class Run:
    """One generator's run against the stub: its samples and the requests the stub saw."""

    samples: list[dict[str, Any]]
    requests: list[Request]
    seconds: float
    started_ms: int  # the start line's instant: where the plan's arrivals begin


def run(generator: str, scenario: str, answers: Answers, out: Path, load: dict[str, Any] | None = None) -> Run:
    """A run of `generator` against the stub, with `load` (default: load_properties(scenario))."""
    hot_accounts = HOT_ACCOUNTS if scenario == "contention" else 0  # as bankbench.run.runner makes them
    with stub(answers, hot_accounts) as server:
        properties = {**(load or load_properties(scenario)), "host": "127.0.0.1", "port": server.server_port}
        started = time.monotonic()
        driver = generators.start(generator, properties, out)
        killer = threading.Timer(RUN_TIMEOUT_S, driver.stop)
        killer.start()
        try:
            console = list(driver.lines())
            rc = driver.wait(timeout=10)
        finally:
            killer.cancel()
            driver.stop()
        seconds = time.monotonic() - started
        assert seconds < RUN_TIMEOUT_S, f"{generator} ran for over {RUN_TIMEOUT_S} s: killed"
        assert rc == 0, f"{generator} exited with {rc}:\n" + "\n".join(console[-30:])
        requests = list(server.bank.requests)
    module = generators.MODULES[generator]
    samples = histograms.read_samples(out / module.SAMPLES)
    if samples.empty:
        log = (out / module.LOG).read_text(errors="replace").splitlines()
        errors = [line for line in log if re.search(r"ERROR|Exception|Error:", line)][:5] or ["(no error in it)"]
        pytest.fail(f"{generator} exited 0 without a sample ({len(requests)} requests reached the stub); "
                    f"its log {out / module.LOG}:\n" + "\n".join(errors), pytrace=False)
    return Run(samples.astype({"label": str, "responseCode": str, "threadName": str}).to_dict("records"),
               requests, seconds, driver.progress.started_ms)


# --- the scenario a run shows ------------------------------------------------------------------------

def template(request: Request, scenario: str) -> tuple:
    """The request without what is drawn at random: contention's amount, as a range."""
    body = request.body
    if scenario == "contention" and isinstance(body, tuple):
        body = tuple((key, "1..100" if key == "amount" and value in range(1, 101) else value)
                     for key, value in body)
    return request.method, request.path, body, request.content_type


def iterations(result: Run, scenario: str) -> list[list[tuple]]:
    """Each iteration's rows: (label, request template, response code, success). The samples'
    iterations (threadName) and the stub's (connections) are paired in the order they began."""
    by_thread: dict[str, list[dict]] = collections.defaultdict(list)
    for sample in result.samples:
        by_thread[sample["threadName"]].append(sample)
    threads = sorted((sorted(rows, key=lambda row: row["timeStamp"]) for rows in by_thread.values()),
                     key=lambda rows: rows[0]["timeStamp"])
    by_connection: dict[int, list[Request]] = collections.defaultdict(list)
    for request in result.requests:
        by_connection[request.connection].append(request)
    connections = [by_connection[key] for key in sorted(by_connection)]
    assert len(threads) == len(connections), (
        f"{len(threads)} iterations in the samples, {len(connections)} connections at the stub: "
        "not one connection per iteration")
    rows = []
    for samples, requests in zip(threads, connections, strict=True):
        assert len(samples) == len(requests), f"{len(samples)} samples, {len(requests)} requests in an iteration"
        rows.append([(s["label"], template(r, scenario), s["responseCode"], bool(s["success"]))
                     for s, r in zip(samples, requests, strict=True)])
    return rows


def scenario_of(result: Run, scenario: str, generator: str) -> list[tuple]:
    """The one sequence every iteration of the run followed."""
    rows = iterations(result, scenario)
    assert len(rows) == RATE * ARRIVALS_S, f"{generator}: {len(rows)} iterations, planned {RATE * ARRIVALS_S}"
    kinds = collections.Counter(tuple(row) for row in rows)
    assert len(kinds) == 1, f"{generator}: iterations differ:\n" + "\n".join(
        f"  {count} x\n" + "\n".join(f"    {step}" for step in kind) for kind, count in kinds.items())
    return rows[0]


def draws(result: Run) -> dict[str, bool]:
    """Contention's random draws as the stub saw them (with 15 iterations a wrong answer here has a
    chance below 1e-6): the transfer's source and amount vary; the balance read is of an account
    drawn again (the plan's pre-processor runs before each sampler), not always the source."""
    transfers = [r for r in result.requests if r.path == "/transaction"]
    reads = {r.connection: r.raw["path"] for r in result.requests if r.method == "GET"}
    return {"source varies": len({r.raw["from_client_id"] for r in transfers}) > 1,
            "amount varies": len({r.raw["amount"] for r in transfers}) > 1,
            "balance read always of the source": all(
                str(r.raw["from_client_id"]) == reads.get(r.connection) for r in transfers)}


def side_by_side(jm: list[tuple], gat: list[tuple]) -> str:
    lines = []
    for step, (left, right) in enumerate(itertools.zip_longest(jm, gat), 1):
        mark = "  " if left == right else "!="
        lines.append(f"{mark} {step}. JMeter:  {left}\n   {step}. Gatling: {right}")
    return "\n".join(lines)


@pytest.mark.untimed
@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("scenario", profiles.SCENARIOS)
def test_jmeter_and_gatling_run_the_same_scenario(scenario: str, variant: str, tmp_path: Path) -> None:
    results = {name: run(name, scenario, VARIANTS[variant], tmp_path / name) for name in ("jmeter", "gatling")}
    jm, gat = (scenario_of(results[name], scenario, name) for name in ("jmeter", "gatling"))
    assert gat == jm, f"{scenario} against the {variant} stub: the generators differ\n{side_by_side(jm, gat)}"
    # The plan as this test reads it (bank.jmx): that the stub's variant fails what it should.
    assert [step[3] for step in jm] == EXPECTED_SUCCESS[scenario, variant], side_by_side(jm, gat)
    if variant == "right":
        assert [(label, request) for label, request, _, _ in jm] == EXPECTED_REQUESTS[scenario]
        if scenario == "contention":
            assert draws(results["gatling"]) == draws(results["jmeter"]) == {
                "source varies": True, "amount varies": True, "balance read always of the source": False}


def test_gatling_starts_each_phase_at_its_rate(tmp_path: Path) -> None:
    """A phased level's properties (profile overload's shape, small: 2 s at 5/s, then 2 s at
    15/s): floor(rate x seconds) iterations in each phase, within its seconds (give or take the
    few ms between an arrival and its first request's start)."""
    profile = profiles.with_rates(profiles.load("overload", {"services": ["go"], "warmup_s": 0,
                                                             "phases": [[2, 1.0], [2, 3.0]]}), {"go": RATE}, "a test")
    load = {**profiles.levels(profile)[0].load_properties(), "drain_s": DRAIN_S}
    assert load["phases"] == "2:5,2:15" and (load["rate"], load["arrivals_s"]) == (0, 0)
    result = run("gatling", "rematch", VARIANTS["right"], tmp_path, load)
    firsts = collections.defaultdict(lambda: float("inf"))
    for sample in result.samples:
        firsts[sample["threadName"]] = min(firsts[sample["threadName"]], sample["timeStamp"] - result.started_ms)
    starts, slack_ms = sorted(firsts.values()), 100
    assert len(starts) == 2 * 5 + 2 * 15 and starts[0] >= -1 and starts[-1] < 4000 + slack_ms
    assert sum(t < 2000 - slack_ms for t in starts) <= 10 <= sum(t < 2000 + slack_ms for t in starts)
