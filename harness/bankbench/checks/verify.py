"""`make verify`: proof that the services do the same database work per request.

The TechEmpower way: each, on a throwaway cluster with pg_stat_statements and a pool of one
connection, answers a fixed mix; per request type PostgreSQL must see exactly its contract's
statements (one, none if refused) in one transaction, the same texts from every service. PostgreSQL
15 publishes a backend's counts for sure only when it exits, so each batch ends by terminating the
service's backend; as a new connection costs work of its own (start-up transaction, pgx preparing),
each type runs a batch of 1, then of 1 + N: the difference over N is a request's cost, the rest a
connection's, reported but not judged. A batch in which an answer came 500 ms or more after the
one before is sent again: its pool may have checked the idle connection, a transaction of its own.

See docs/api.md#equivalent-by-proof-make-verify."""

import argparse
import hashlib
import json
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx
import pandas as pd

from bankbench import registry
from bankbench.bank import processes
from bankbench.errors import UserError
from bankbench.machine.postgres import DATABASE, Cluster

REQUESTS_PER_TYPE = 20
POOL_CHECK_S = 0.5  # every service's pool checks a connection idle this long before lending it
IDLE_CHECK_S = 0.7  # longer than that: the next request sees the closed connection
BATCH_TRIES = 3
SETTINGS = {"shared_preload_libraries": "pg_stat_statements", "autovacuum": "off"}
UNKNOWN_ID = 10**12
RICH, POOR = "rich", "poor"  # the two clients every mix creates first, by role


@dataclass(frozen=True)
class RequestType:
    """One kind of request and what the contract says it costs the database."""

    name: str
    method: str
    path: str
    body: dict | None
    status: int
    statements: int  # 1, or 0 when the service must refuse before touching the database

    def send(self, client: httpx.Client, ids: dict[str, int]) -> int:
        body = {k: ids.get(v, v) for k, v in self.body.items()} if self.body else None
        return client.request(self.method, self.path.format(**ids), json=body).status_code


def _transfer(name: str, src: str, dst: str | int, amount: int, status: int,
              statements: int = 1) -> RequestType:
    return RequestType(name, "POST", "/transaction",
                       {"from_client_id": src, "to_client_id": dst, "amount": amount},
                       status, statements)


MIX = (
    RequestType("health", "GET", "/health", None, 200, 1),
    RequestType("create_client", "POST", "/client/new/100", None, 200, 1),
    RequestType("balance", "GET", "/client/{rich}/balance", None, 200, 1),
    _transfer("transfer", RICH, POOR, 1, 200),
    _transfer("transfer_unknown_client", RICH, UNKNOWN_ID, 1, 404),
    _transfer("transfer_insufficient_funds", POOR, RICH, 10**9, 422),
    _transfer("transfer_invalid", RICH, RICH, 1, 400, statements=0),
)

SNAPSHOT_SQL = f"""
SELECT json_build_object(
  'transactions', (SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = '{DATABASE}'),
  'sessions', (SELECT sessions FROM pg_stat_database WHERE datname = '{DATABASE}'),
  'statements', (SELECT coalesce(json_object_agg(s.queryid, json_build_object('query', s.query,
                                                                               'calls', s.calls)), '{{}}')
                 FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
                 WHERE d.datname = '{DATABASE}'))
"""
# Waits (up to 10 s each) until the service's backends have exited, and so published their counts.
TERMINATE_SQL = f"""
SELECT coalesce(bool_and(pg_terminate_backend(pid, 10000)), true) FROM pg_stat_activity
WHERE datname = '{DATABASE}' AND backend_type = 'client backend'
"""


def fingerprint(query: str) -> str:
    """A short digest of a normalized statement text, to compare services at a glance."""
    return hashlib.sha256(query.encode()).hexdigest()[:12]


def measure(service: processes.Service, workdir: Path) -> dict[str, dict]:
    """Runs the mix through one service on a throwaway cluster of its own; the counts per type."""
    with Cluster.create(extra_settings=SETTINGS) as cluster:
        cluster.psql("CREATE EXTENSION pg_stat_statements", database="postgres")
        cluster.reset()
        with (processes.local_service(service, 1, cluster=cluster,
                                      log=workdir / f"verify-{service.name}.log") as svc,
              httpx.Client(base_url=svc.url, timeout=30) as client):
            ids = {RICH: _new_client(client, 10**6), POOR: _new_client(client, 0)}
            counts, before = {}, _barrier(cluster)
            for request in MIX:
                statuses = {request.send(client, ids)}
                middle = _barrier(cluster)
                one = _delta(before, middle)
                for _ in range(BATCH_TRIES):  # a stalled batch is sent again
                    batch_statuses, paused = _batch(request, client, ids)
                    statuses |= batch_statuses
                    after = _barrier(cluster)
                    if not paused:
                        break
                    middle = after
                else:
                    raise UserError(f"verify: {service.name} {request.name}: in each of "
                                    f"{BATCH_TRIES} batches, an answer came {POOL_CHECK_S:g} s or more "
                                    "after the one before")
                counts[request.name] = _costs(one, _delta(middle, after))
                counts[request.name]["statuses"] = sorted(statuses)
                before = after
    return counts


def _new_client(client: httpx.Client, balance: int) -> int:
    if (resp := client.post(f"/client/new/{balance}")).status_code != 200:
        raise UserError(f"verify: creating a client answered {resp.status_code}: {resp.text}")
    return resp.json()["id"]


def _batch(request: RequestType, client: httpx.Client, ids: dict[str, int]) -> tuple[set[int], bool]:
    """Sends 1 + N requests one after another; their statuses, and whether one answer came so long
    after the one before that the connection may have sat idle past the pools' check, whose probe is
    a transaction of its own: on a busy machine (verify runs the services side by side) a stall can
    do that."""
    statuses = {request.send(client, ids)}  # on a new connection: nothing to check yet
    paused, last = False, time.monotonic()
    for _ in range(REQUESTS_PER_TYPE):
        statuses.add(request.send(client, ids))
        paused |= (now := time.monotonic()) - last >= POOL_CHECK_S
        last = now
    return statuses, paused


def _barrier(cluster: Cluster) -> dict:
    """Ends the service's sessions, then reads the counters they published."""
    if cluster.psql(TERMINATE_SQL, database="postgres") != "t":
        raise UserError("verify: the service's database sessions did not end within 10 s")
    snapshot = json.loads(cluster.psql(SNAPSHOT_SQL, database="postgres"))
    time.sleep(IDLE_CHECK_S)
    return snapshot


def _delta(before: dict, after: dict) -> dict:
    """Calls per statement text between two snapshots, and transactions less sessions' start-ups."""
    calls = {now["query"]: n for queryid, now in after["statements"].items()
             if (n := now["calls"] - before["statements"].get(queryid, {}).get("calls", 0))}
    return {"calls": calls,
            "transactions": (after["transactions"] - before["transactions"]
                             - (after["sessions"] - before["sessions"]))}


def _costs(one: dict, many: dict) -> dict:
    """Per request and per new connection, from a batch of one request and one of 1 + N."""
    n = REQUESTS_PER_TYPE
    per_request, setup = {}, {}
    for query in one["calls"].keys() | many["calls"].keys():
        a, b = one["calls"].get(query, 0), many["calls"].get(query, 0)
        if b - a:
            per_request[fingerprint(query)] = {"query": query, "calls": (b - a) / n}
        if a - (b - a) / n:
            setup[fingerprint(query)] = {"query": query, "calls": a - (b - a) / n}
    transactions = (many["transactions"] - one["transactions"]) / n
    return {"statements": per_request,
            "calls_per_request": sum(s["calls"] for s in per_request.values()),
            "transactions_per_request": transactions,
            "setup": {"statements": setup, "transactions": one["transactions"] - transactions}}


def problems(results: dict[str, dict[str, dict]]) -> list[str]:
    """Every way the results break the rules (module doc) or miss the expected status."""
    found = []
    for request in MIX:
        texts = {}
        for name, counts in results.items():
            got = counts[request.name]
            want = request.statements
            texts[name] = sorted(got["statements"])
            for what, value in (("statements", len(got["statements"])),
                                ("calls per request", got["calls_per_request"]),
                                ("transactions per request", got["transactions_per_request"])):
                if value != want:
                    found.append(f"{name} {request.name}: {what} {value:g}, want {want}")
            if got["statuses"] != [request.status]:
                found.append(f"{name} {request.name}: statuses {got['statuses']}, "
                             f"want [{request.status}]")
        if len({tuple(t) for t in texts.values()}) > 1:
            found.append(f"{request.name}: the services sent different statements: {texts}")
    return found


def table(results: dict[str, dict[str, dict]]) -> str:
    rows = [{"service": name, "request": kind, "status": ",".join(map(str, got["statuses"])),
             "statements": len(got["statements"]), "calls/request": got["calls_per_request"],
             "transactions/request": got["transactions_per_request"],
             "statement fingerprints": " ".join(sorted(got["statements"])) or "-",
             "new connection: statements, transactions": _setup(got["setup"])}
            for name, counts in results.items() for kind, got in counts.items()]
    return pd.DataFrame(rows).to_markdown(index=False, floatfmt="g")


def _setup(setup: dict) -> str:
    texts = ", ".join(f"{s['calls']:g} x {s['query'][:40]}" for s in setup["statements"].values())
    return f"{texts or 'none'}; {setup['transactions']:g}"


@dataclass(frozen=True)
class Findings:
    """What verify found (verify.json): whether every rule held, the rules broken, and per service
    and request type what PostgreSQL saw (`measure`) over batches of `requests_per_type`."""

    requests_per_type: int
    ok: bool
    problems: list[str]
    results: dict[str, dict[str, dict]]

    @property
    def document(self) -> dict:
        return asdict(self)


def run(services: list[str] | list[processes.Service], workdir: Path,
        out: Path | None = None) -> Findings:
    """Verifies the services (by name, or as they are) on a throwaway cluster each; writes `out`
    (JSON) when given and raises UserError, after printing the table, when any rule is broken."""
    chosen = [processes.get(s) if isinstance(s, str) else s for s in services]
    with ThreadPoolExecutor(len(chosen)) as pool:
        measured = pool.map(lambda service: measure(service, workdir), chosen)
        results = dict(zip([s.name for s in chosen], measured, strict=True))
    found = problems(results)
    findings = Findings(REQUESTS_PER_TYPE, not found, found, results)
    if out:
        out.write_text(json.dumps(findings.document, indent=2) + "\n")
    print(table(results), flush=True)
    if found:
        raise UserError("verify FAILED: the services do not do the same database work:\n  "
                        + "\n  ".join(found))
    print(f"verify: {len(chosen)} services x {len(MIX)} request types, {REQUESTS_PER_TYPE} "
          "requests each: the same statements, each request one statement (none when refused) "
          "and one transaction", flush=True)
    return findings


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--service", default=",".join(registry.names()), help="comma list")
    p.add_argument("--out", type=Path, help="write the result here as JSON")


def main(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory() as work:
        run(args.service.split(","), Path(work), args.out)
    return 0
