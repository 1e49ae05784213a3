"""`bankbench connections`: N open keep-alive connections against each service (`make connections`).

Writes results/connections/<UTC stamp>.json and results/connections/README.md (the latest, as a
table); exits 1 when a service died or answered no request.
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime, timezone

import httpx

from bankbench import paths, registry
from bankbench.checks import connections
from bankbench.measure import manifest
from bankbench.system import services
from bankbench.tools.pg import Cluster, free_port

OUT = paths.ROOT / "results" / "connections"
POOL = 50
CLIENTS = 100  # accounts the connections read balances of


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("connections", help="hold N slow keep-alive connections on each service")
    p.add_argument("--service", default=",".join(registry.names()), help="comma list")
    p.add_argument("--connections", type=int, default=10_000)
    p.add_argument("--duration", type=float, default=60, help="seconds held after the ramp-up")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    # Each side holds one descriptor per connection; the services inherit the raised limit.
    connections.raise_fd_limit(args.connections + 1000)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    rows = []
    cluster = Cluster.create()
    try:
        for name in args.service.split(","):
            cluster.reset()
            proc = services.get(name).start(port=free_port(), pool=POOL, db_env=cluster.env(),
                                            log=paths.STATE / "connections" / f"{name}.log")
            try:
                ids = [httpx.post(f"{proc.url}/client/new/1000").json()["id"]
                       for _ in range(CLIENTS)]
                port = int(proc.url.rsplit(":", 1)[1])
                row = {"service": name, **connections.run(port, proc.pid, ids, args.connections,
                                                          args.duration)}
            finally:
                proc.stop()
            print(_line(row), flush=True)
            rows.append(row)
    finally:
        cluster.destroy()
    OUT.mkdir(parents=True, exist_ok=True)
    doc = {"created_utc": stamp, "git": manifest.git(), "machine": manifest.machine(),
           "load": {"connections": args.connections, "duration_s": args.duration,
                    "trickle_s": connections.TRICKLE_S, "think_s": connections.THINK_S,
                    "pool": POOL, "request": "GET /client/{id}/balance, keep-alive"},
           "results": rows}
    (OUT / f"{stamp}.json").write_text(json.dumps(doc, indent=2) + "\n")
    (OUT / "README.md").write_text(_readme(doc))
    print(f"written: {(OUT / 'README.md').relative_to(paths.ROOT)}, {stamp}.json")
    failed = [r["service"] for r in rows if not r["service_alive"] or not r["answered"]]
    return 1 if failed else 0


def _line(r: dict) -> str:
    return (f"{r['service']}: {r['opened']}/{r['connections']} connections opened "
            f"(peak {r['open_peak']} open), {r['answered']} answers {r['answers_by_status']}, "
            f"connect failures {r['connect_failed'] or 0}, dropped {r['dropped_by_service'] or 0}, "
            f"RSS {r['rss_before_mb']:.0f} -> peak {r['rss_peak_mb']:.0f} MB, "
            f"threads peak {r['threads_peak']}, alive {r['service_alive']}")


def _readme(doc: dict) -> str:
    load = doc["load"]
    head = ("| service | opened | peak open | answers (by status) | connect failures | "
            "dropped by service | RSS before / peak / end (MB) | threads peak | alive |\n"
            "|---|---|---|---|---|---|---|---|---|\n")
    rows = "".join(
        f"| {r['service']} | {r['opened']} / {r['connections']} | {r['open_peak']} | "
        f"{r['answered']} {r['answers_by_status']} | {r['connect_failed'] or 0} | "
        f"{r['dropped_by_service'] or 0} | {r['rss_before_mb']:.0f} / {r['rss_peak_mb']:.0f} / "
        f"{r['rss_end_mb']:.0f} | {r['threads_peak']} | {r['service_alive']} |\n"
        for r in doc["results"])
    return (f"# Many connections\n\n"
            f"`make connections` ({doc['created_utc']}, commit {doc['git'].get('commit', '?')}): "
            f"{load['connections']} keep-alive connections to 127.0.0.1 held {load['duration_s']:.0f} s "
            f"after the ramp-up, each sending `{load['request']}` in two parts "
            f"{load['trickle_s']} s apart, then waiting {load['think_s'][0]:.0f}-"
            f"{load['think_s'][1]:.0f} s; pool {load['pool']}. Client and service share this "
            f"machine's {doc['machine'].get('cores', '?')} cores.\n\n{head}{rows}\n"
            "Settings both services state alike (see their READMEs): at most 10,000 open "
            "connections (more wait in the kernel's listen backlog), a client silent for 10 s "
            "while sending a request, or idle for 10 s between requests, is disconnected.\n\n"
            "Reading: \"alive\" and zero connect failures and drops mean every connection was "
            "held and every request answered. Go's memory is its connections' goroutines and "
            "buffers; a JVM keeps the heap it has grown to (RSS at the end equals the peak), up "
            "to its maximum heap, by default a quarter of the machine's memory: `JAVA_OPTS=-Xmx...` "
            "bounds it lower. With virtual threads each waiting request's stack lives on that heap.\n")
