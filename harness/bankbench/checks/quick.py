"""A quick closed-loop benchmark (wrk) of the two hot endpoints, next to pgbench running the very
same SQL on the same database: how much of a service's cost is the database's.

Not the main benchmark (JMeter, `make bench`): a first figure in about a minute per service.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

import httpx

from bankbench import config, paths
from bankbench.system import money, queries, services
from bankbench.tools import pgbin
from bankbench.errors import UserError
from bankbench.measure.resources import Tree
from bankbench.measure.scrape import Scraper, parse_selector, values
from bankbench.tools.pg import Cluster, free_port

CLIENTS = 10_000
SEED = (f"WITH c AS (INSERT INTO client (balance) SELECT 1000000000 FROM generate_series(1, "
        f"{CLIENTS}) RETURNING id, balance) "
        "INSERT INTO transaction (to_client_id, amount) SELECT id, balance FROM c")
WRK_SCRIPTS = paths.ROOT / "scripts" / "wrk"
UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}
WARMUP_ROUND_S = 10
# Warm-up ends when a round's throughput is within STEADY of the round before and, for a JVM, its
# JIT compilations took less than JIT_QUIET of the round (Micrometer's jvm_compilation_time_ms_total
# on /metrics: elapsed time, so a compiler thread waiting for a core counts too). Throughput alone is not enough: on platform threads the compiler threads share two
# cores with 64 request threads, and throughput sits on a plateau for a minute or more before C2
# has compiled the hot paths.
STEADY = 0.05
JIT_QUIET = 0.02
JIT_TIME = parse_selector("jvm_compilation_time_ms_total")
ENDPOINTS = {"balance": "GET /client/{id}/balance", "transfer": "POST /transaction"}


def pgbench_scripts(out: Path) -> dict[str, Path]:
    """pgbench scripts running each endpoint's one statement verbatim, $n becoming the variable
    :pn (pgbench -M prepared turns them back into $n, so the server sees the services' text)."""
    sql = {k: re.sub(r"\$(\d+)", r":p\1", v) for k, v in queries.statements().items()}
    pick = f"\\set p1 random(1, {CLIENTS})\n"
    texts = {
        "balance": f"{pick}{sql['balance']};\n",
        # transfer(from, to, amount): two distinct clients, amount 1
        "transfer": (f"{pick}\\set p2 random(1, {CLIENTS - 1})\n"
                     "\\set p2 CASE WHEN :p2 >= :p1 THEN :p2 + 1 ELSE :p2 END\n\\set p3 1\n"
                     f"{sql['transfer']};\n"),
    }
    files = {}
    for name, text in texts.items():
        files[name] = out / f"{name}.pgbench"
        files[name].write_text(text)
    return files


def _ms(value: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", value).groups()
    return float(number) * UNITS[unit]


def wrk(url: str, script: str, connections: int, seconds: int) -> dict[str, float]:
    out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency",
                          "-s", str(WRK_SCRIPTS / f"{script}.lua"), url],
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


def pgbench(tool: Path, cluster: Cluster, script: Path, clients: int, seconds: int,
            logdir: Path) -> dict:
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
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] / 1000
    return {"rps": float(tps.group(1)), "p50_ms": pick(0.50), "p99_ms": pick(0.99), "non_2xx": 0}


def warm_up(url: str, endpoint: str, connections: int, max_s: int) -> list[dict[str, float]]:
    """wrk rounds of WARMUP_ROUND_S until throughput is steady and the JIT quiet, at most
    `max_s`; returns each round's requests/s and JIT milliseconds."""
    rounds: list[dict[str, float]] = []
    jit_ms = _jit_ms(url)
    while len(rounds) * WARMUP_ROUND_S < max_s:
        rps = wrk(url, endpoint, connections, WARMUP_ROUND_S)["rps"]
        jit_ms, before = _jit_ms(url), jit_ms
        rounds.append({"rps": rps, "jit_ms": jit_ms - before})
        if _warm(rounds):
            break
    return rounds


def _warm(rounds: list[dict[str, float]]) -> bool:
    """Whether the warm-up ended on its rule rather than at its time limit."""
    return (len(rounds) >= 2 and abs(rounds[-1]["rps"] - rounds[-2]["rps"]) <= STEADY * rounds[-2]["rps"]
            and rounds[-1]["jit_ms"] <= JIT_QUIET * WARMUP_ROUND_S * 1000)


def _jit_ms(url: str) -> float:
    """The JIT's compilation milliseconds so far (0 for a service without a JIT)."""
    page = httpx.get(f"{url}/metrics", timeout=10).text
    return values(page, {"jit": JIT_TIME}).get("jit", 0.0)


def measure(svc: services.Running, endpoint: str, connections: int, seconds: int,
            scrape_to: Path | None = None) -> dict:
    """wrk's figures, with the service's CPU time per request and its memory at the end; with
    `scrape_to`, GET /metrics once a second meanwhile, as a benchmark level does."""
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
    """Every (endpoint, service) pair plus pgbench, each on a freshly seeded database; returns
    the rows and the server's settings."""
    if not shutil.which("wrk"):
        raise UserError("wrk is required: apt-get install wrk")
    if not (tool := pgbin.pgbench()):
        raise UserError(f"pgbench of PostgreSQL {pgbin.MAJOR} or newer is required: see make doctor")
    runner = f"pgbench {pgbin.major(tool)} (same SQL)"  # its major, as it may be newer than 15
    rows = []
    cluster = Cluster.create()
    try:
        scripts = pgbench_scripts(workdir)
        for endpoint in ENDPOINTS:
            for name in service_names:
                _fresh(cluster)
                svc = services.get(name).start(port=free_port(), pool=config.DEFAULT_POOL_SIZE, db_env=cluster.env(),
                                               log=workdir / f"{name}.log")
                try:
                    warm = warm_up(svc.url, endpoint, connections, warmup_s)
                    figures = measure(svc, endpoint, connections, seconds,
                                      workdir / f"{name}-{endpoint}-metrics.csv" if scrape else None)
                finally:
                    svc.stop()
                rows.append({"endpoint": ENDPOINTS[endpoint], "runner": name, **figures,
                             "money_ok": _money_ok(cluster),
                             "warmup_s": WARMUP_ROUND_S * len(warm), "warm": _warm(warm),
                             "warmup_rounds": warm})
                print(f"  {name:<13} {ENDPOINTS[endpoint]:<26} {rows[-1]}", flush=True)
            _fresh(cluster)
            warm, measured = workdir / f"warmup-{endpoint}", workdir / f"pgbench-{endpoint}"
            warm.mkdir()
            measured.mkdir()
            pgbench(tool, cluster, scripts[endpoint], connections, WARMUP_ROUND_S, warm)  # nothing to compile
            rows.append({"endpoint": ENDPOINTS[endpoint], "runner": runner,
                         **pgbench(tool, cluster, scripts[endpoint], connections, seconds, measured),
                         "money_ok": _money_ok(cluster)})
            print(f"  {'pgbench':<13} {ENDPOINTS[endpoint]:<26} {rows[-1]}", flush=True)
        settings = cluster.settings()
    finally:
        cluster.destroy()
    return rows, settings


def _money_ok(cluster: Cluster) -> bool:
    return bool(money.parse(cluster.psql(paths.MONEY_CHECK.read_text()))["ok"])


def _fresh(cluster: Cluster) -> None:
    cluster.reset()
    cluster.psql(SEED)
