"""`make quick-bench`: a quick wrk benchmark of the hot endpoints next to pgbench's.

A quick closed-loop benchmark (wrk) of the two hot endpoints, next to pgbench running the very
same SQL on the same database: how much of a service's cost is the database's. Not the main
benchmark (JMeter, `make bench`): a first figure in about a minute per service.

See docs/benchmarks.md#the-commands and docs/method.md#the-report."""

import argparse
import json
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd

from bankbench import config, paths, registry, runid
from bankbench.bank import aotcache, money, processes, queries
from bankbench.checks import verify
from bankbench.errors import UserError
from bankbench.machine import postgres_binaries
from bankbench.machine.postgres import Cluster
from bankbench.measure import manifest, steady
from bankbench.measure.resources import Tree
from bankbench.measure.scrape import Scraper

CLIENTS = 10_000
SEED = (f"WITH c AS (INSERT INTO client (balance) SELECT 1000000000 FROM generate_series(1, "
        f"{CLIENTS}) RETURNING id, balance) "
        "INSERT INTO transaction (to_client_id, amount) SELECT id, balance FROM c")
ENDPOINTS = {"balance": "GET /client/{id}/balance", "transfer": "POST /transaction"}


def pgbench_scripts(out: Path) -> dict[str, Path]:
    """Each endpoint's statement as a pgbench script, $n as :pn (-M prepared sends back $n)."""
    sql = {k: re.sub(r"\$(\d+)", r":p\1", v) for k, v in queries.statements().items()}
    pick = f"\\set p1 random(1, {CLIENTS})\n"
    texts = {
        "create_client": f"\\set p1 1000\n{sql['create_client']};\n",  # a client with a deposit, as the scenario's
        "balance": f"{pick}{sql['balance']};\n",
        "transfer": (f"{pick}\\set p2 random(1, {CLIENTS - 1})\n"
                     "\\set p2 CASE WHEN :p2 >= :p1 THEN :p2 + 1 ELSE :p2 END\n\\set p3 1\n"
                     f"{sql['transfer']};\n"),
    }
    for name, text in texts.items():
        (out / f"{name}.pgbench").write_text(text)
    return {name: out / f"{name}.pgbench" for name in texts}


def _ms(value: str) -> float:
    if (match := re.fullmatch(r"([\d.]+)(us|ms|s)", value)) is None:
        raise ValueError(f"not a duration as wrk prints one: {value!r}")
    number, unit = match.groups()
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def wrk(url: str, script: str, connections: int, seconds: int) -> dict[str, float]:
    out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency",
                          "-s", str(paths.ROOT / "scripts" / "wrk" / f"{script}.lua"), url],
                         capture_output=True, text=True, env={"CLIENTS": str(CLIENTS)},
                         timeout=seconds + 60)
    text = out.stdout
    rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
    p50, p99 = (re.search(rf"\s{p}%\s+([\d.]+\w+)", text) for p in (50, 99))
    if out.returncode != 0 or not (rps and p50 and p99):
        raise UserError(f"wrk failed: {out.stderr or text}")
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
    return {"rps": float(rps.group(1)), "p50_ms": _ms(p50.group(1)), "p99_ms": _ms(p99.group(1)),
            "non_2xx": int(bad.group(1)) if bad else 0}


def pgbench_tool() -> Path:
    if not (tool := postgres_binaries.pgbench()):
        raise UserError(f"pgbench of PostgreSQL {postgres_binaries.MAJOR} or newer is required: "
                        "see make doctor")
    return tool


def pgbench(tool: Path, cluster: Cluster, script: Path, clients: int, seconds: int,
            logdir: Path) -> dict:
    logdir.mkdir()
    cmd = [str(tool), "-n", "-M", "prepared", "-c", str(clients), "-j", "2",
           "-T", str(seconds), "-f", str(script), "-l", "--log-prefix", str(logdir / script.stem),
           "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "postgres", "bank"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 60)
    tps = re.search(r"tps = ([\d.]+)", out.stdout)
    if out.returncode != 0 or not tps:
        raise UserError(f"pgbench failed: {out.stderr or out.stdout}")
    # per-transaction log: client, number, latency in microseconds, script, epoch s, epoch us
    latencies = sorted(int(line.split()[2]) for log in logdir.glob(f"{script.stem}.*")
                       for line in log.read_text().splitlines())
    p50, p99 = (latencies[min(len(latencies) - 1, int(q * len(latencies)))] / 1000
                for q in (0.50, 0.99))
    return {"rps": float(tps.group(1)), "p50_ms": p50, "p99_ms": p99, "non_2xx": 0}


def warm_up(svc: processes.Running, endpoint: str, connections: int, max_s: int) -> list[steady.Round]:
    """wrk rounds until the service is warm (bankbench.measure.steady), at most `max_s`."""
    rounds: list[steady.Round] = []
    meter = steady.Meter(svc.service.name, svc.url)
    _, jit_ms = meter.read()
    while len(rounds) * steady.ROUND_S < max_s:
        rps = wrk(svc.url, endpoint, connections, steady.ROUND_S)["rps"]
        jit_ms, before = meter.read()[1], jit_ms
        rounds.append(steady.Round(rps, jit_ms - before))
        if steady.is_warm(rounds):
            break
    return rounds


def measure(svc: processes.Running, endpoint: str, connections: int, seconds: int,
            scrape_to: Path | None = None) -> dict:
    """wrk's figures, the service's CPU time per request and end RSS; /metrics into `scrape_to`."""
    tree = Tree(svc.pid)
    tree.sample(1)
    scraper = Scraper(scrape_to, svc.url, svc.service.name) if scrape_to else None
    if scraper:
        scraper.start()
    start = time.monotonic()
    figures = wrk(svc.url, endpoint, connections, seconds)
    elapsed = time.monotonic() - start
    if scraper:
        scraper.stop()
    cpu_pct, rss_mb = tree.sample(elapsed)  # % of one core over the measured run
    requests = figures["rps"] * seconds
    return {**figures, "service_cpu_ms_per_request": round(cpu_pct / 100 * elapsed * 1000 / requests, 4),
            "service_rss_mb": round(rss_mb)}


def run(service_names: list[str], connections: int, seconds: int, warmup_s: int,
        workdir: Path, scrape: bool = False) -> tuple[list[dict], dict[str, str]]:
    """Every (endpoint, service) pair plus pgbench, each on a fresh database; server settings."""
    if not shutil.which("wrk"):
        raise UserError("wrk is required: apt-get install wrk")
    tool = pgbench_tool()
    runner = f"pgbench {postgres_binaries.major(tool)} (same SQL)"  # its major, as it may be newer than 15
    rows = []
    with Cluster.create() as cluster:
        scripts = pgbench_scripts(workdir)
        for endpoint in ENDPOINTS:
            for name in service_names:
                reseed(cluster)
                with processes.local_service(name, config.DEFAULT_POOL_SIZE, cluster=cluster,
                                            log=workdir / f"{name}.log") as svc:
                    warm = warm_up(svc, endpoint, connections, warmup_s)
                    figures = measure(svc, endpoint, connections, seconds,
                                      workdir / f"{name}-{endpoint}-metrics.csv" if scrape else None)
                rows.append({"endpoint": ENDPOINTS[endpoint], "runner": name, **figures,
                             "money_ok": _money_ok(cluster),
                             "warmup_s": steady.ROUND_S * len(warm), "warm": steady.is_warm(warm),
                             "warmup_rounds": [r.as_dict() for r in warm]})
                print(f"  {name:<13} {ENDPOINTS[endpoint]:<26} {rows[-1]}", flush=True)
            reseed(cluster)
            warm_dir, measured_dir = workdir / f"warmup-{endpoint}", workdir / f"pgbench-{endpoint}"
            pgbench(tool, cluster, scripts[endpoint], connections, steady.ROUND_S, warm_dir)  # nothing to compile
            rows.append({"endpoint": ENDPOINTS[endpoint], "runner": runner,
                         **pgbench(tool, cluster, scripts[endpoint], connections, seconds, measured_dir),
                         "money_ok": _money_ok(cluster)})
            print(f"  {'pgbench':<13} {ENDPOINTS[endpoint]:<26} {rows[-1]}", flush=True)
        return rows, cluster.settings()


def _money_ok(cluster: Cluster) -> bool:
    return money.parse(cluster.psql(paths.MONEY_CHECK.read_text())).ok


def reseed(cluster: Cluster) -> None:
    cluster.reset()
    cluster.psql(SEED)


# The verb: `bankbench quick`.
OUT = paths.ROOT / "results" / "quick"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--service", default=",".join(registry.names()), help="comma list")
    p.add_argument("--connections", type=int, default=64)
    p.add_argument("--duration", type=int, default=20, help="measured seconds")
    p.add_argument("--warmup", type=int, default=240,
                   help="at most this many seconds of load before measuring, in rounds until "
                        "throughput is steady (the JVM needs them to compile)")
    p.add_argument("--scrape", action="store_true",
                   help="GET /metrics once a second while measuring, as `bench` does (its cost)")


def main(args: argparse.Namespace) -> int:
    stamp = runid.stamp()
    names = args.service.split(",")
    with tempfile.TemporaryDirectory() as work:
        check = verify.run(names, Path(work))
        rows, pg = run(names, args.connections, args.duration, args.warmup, Path(work), args.scrape)
    doc: dict[str, Any]  # quick's JSON record
    doc = {"created_utc": stamp, "git": manifest.git(), "machine": manifest.machine(),
           "versions": manifest.versions(pg.pop("server_version")), "postgresql": pg,
           "load": (f"closed loop: wrk, 2 threads, {args.connections} connections, warm-up in "
                    f"{steady.ROUND_S} s rounds until a round's throughput is at most "
                    f"{steady.STEADY:.0%} above the one before and a JVM's JIT compiled less than "
                    f"{steady.JIT_QUIET:.0%} of the round (at most {args.warmup} s), then "
                    f"{args.duration} s measured; pgbench -M prepared with {args.connections} "
                    f"clients on the same statement; {CLIENTS} clients seeded; pool "
                    f"{config.DEFAULT_POOL_SIZE}, max_connections {pg['max_connections']}; "
                    "database reset before each row; load generator, service and PostgreSQL "
                    "share the machine"
                    + ("; /metrics scraped once a second while measuring" if args.scrape else "")),
           "jvm_options": processes.jvm_options(), "java_aot_cache": aotcache.enabled(),
           "results": rows, "verify": check.document}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{stamp}.json").write_text(json.dumps(doc, indent=2) + "\n")
    table = pd.DataFrame(rows).drop(columns="warmup_rounds", errors="ignore")
    pgbench = table[table["runner"].str.startswith("pgbench")].set_index("endpoint")["rps"]
    table.insert(3, "% of pgbench", 100 * table["rps"] / table["endpoint"].map(pgbench))
    table = table.rename(columns={"rps": "requests/s", "p50_ms": "p50 ms", "p99_ms": "p99 ms",
                                  "non_2xx": "non-2xx", "money_ok": "money ok"})
    markdown = table.to_markdown(index=False, floatfmt=".1f")
    m, v = doc["machine"], doc["versions"]
    (OUT / "README.md").write_text(
        f"# Quick benchmark, {stamp}\n\n{doc['load']}.\n\n{markdown}\n\n"
        f"Each endpoint is one statement, the same in every service and in pgbench, checked "
        f"first by `make verify` ({verify.REQUESTS_PER_TYPE} requests per type; in `{stamp}.json`), "
        "so a service's requests/s over pgbench's is the share of the database's limit it "
        "reaches. `warm` is False when the warm-up reached its time limit with throughput still "
        "moving or the JIT still compiling: that service was measured before its steady state.\n\n"
        f"Machine: {m['cpu_model']}, {m['cores']} cores, {m['memory_gb']} GB, {m['os']}. "
        f"Versions: {', '.join(f'{k} {val}' for k, val in v.items())}. "
        f"Commit {doc['git']['commit'][:12]}. Raw figures: `{stamp}.json`. "
        "Re-run with `make quick-bench`; the flame graphs of [java-warmup.md](java-warmup.md) with "
        "`make java-warmup-profile`, into `profiles/` (git keeps their `*.threads.txt` only).\n")
    print(markdown)
    return 0
