"""`bankbench quick`: wrk against each service's hot endpoints, next to pgbench on the same SQL.

Writes results/quick/<UTC stamp>.json and results/quick/README.md (the latest, as a table).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

from bankbench import config, paths, registry
from bankbench.system import aotcache, services
from bankbench.measure import manifest
from bankbench.checks import quick, verify

OUT = paths.ROOT / "results" / "quick"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("quick", help="a one-minute wrk + pgbench figure per service")
    p.add_argument("--service", default=",".join(registry.names()), help="comma list")
    p.add_argument("--connections", type=int, default=64)
    p.add_argument("--duration", type=int, default=20, help="measured seconds")
    p.add_argument("--warmup", type=int, default=240,
                   help="at most this many seconds of load before measuring, in rounds until "
                        "throughput is steady (the JVM needs them to compile)")
    p.add_argument("--scrape", action="store_true",
                   help="GET /metrics once a second while measuring, as `bench` does (its cost)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    names = args.service.split(",")
    with tempfile.TemporaryDirectory() as work:
        check = verify.run(names, Path(work))
        rows, pg = quick.run(names, args.connections, args.duration, args.warmup, Path(work),
                             args.scrape)
    doc = {
        "created_utc": stamp, "git": manifest.git(), "machine": manifest.machine(),
        "versions": manifest.versions(pg.pop("server_version")), "postgresql": pg,
        "load": (f"closed loop: wrk, 2 threads, {args.connections} connections, "
                 f"warm-up in {quick.WARMUP_ROUND_S} s rounds until a round's throughput is within "
                 f"{quick.STEADY:.0%} of the one before and a JVM's JIT compiled less than "
                 f"{quick.JIT_QUIET:.0%} of the round (at most {args.warmup} s), then "
                 f"{args.duration} s measured; pgbench -M prepared "
                 f"with {args.connections} clients on the same statement; {quick.CLIENTS} "
                 f"clients seeded; pool {config.DEFAULT_POOL_SIZE}, max_connections 100; database reset before each row; "
                 "load generator, service and PostgreSQL share the machine"
                 + ("; /metrics scraped once a second while measuring" if args.scrape else "")),
        "jvm_options": services.jvm_options(), "java_aot_cache": aotcache.enabled(),
        "results": rows,
        "verify": check,
    }
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
        "Re-run with `make quick-bench`.\n")
    print(markdown)
    return 0

