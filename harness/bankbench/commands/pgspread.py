"""`bankbench pg-spread` (make pg-spread): PostgreSQL alone over few or many connections.

PostgreSQL's CPU per statement at one rate, the same statements spread over a few or many
connections (bankbench.run.experiments.pg_spread). Writes results/quick/pg-spread-<stamp>.json and
prints the median of each connection count.

See docs/request-cost.md#the-cause-platform-javas-statements-go-to-every-backend-in-turn."""

import argparse
import json
import tempfile
from pathlib import Path

import pandas as pd

from bankbench import paths, runid
from bankbench.measure import manifest
from bankbench.results.files import write_json
from bankbench.run.experiments import pg_spread

OUT = paths.RESULTS / "quick"
FIGURES = ["statements_per_s", "latency_ms", "pg_backend_user_ms", "pg_backend_system_ms", "pg_voluntary_switches"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--clients", default="2,16,95", help="comma list of connection counts, probed in turn")
    p.add_argument("--rounds", type=int, default=3, help="how many times each count is probed")
    p.add_argument("--duration", type=int, default=40, choices=range(2 * pg_spread.SETTLE_S + 1, 601),
                   metavar="SECONDS", help="seconds per probe, measured but the first and last "
                                           f"{pg_spread.SETTLE_S} (default: 40)")


def main(args: argparse.Namespace) -> int:
    clients = [int(n) for n in args.clients.split(",")]
    rate, stamp = pg_spread.rate(), runid.stamp()
    print(f"pg-spread: {len(clients) * args.rounds} probes of {args.duration} s at {rate} statements/s")
    with tempfile.TemporaryDirectory() as work:
        rows = pg_spread.run(clients, args.rounds, args.duration, Path(work),
                             lambda row: print(json.dumps(row), flush=True))
    out = OUT / f"pg-spread-{stamp}.json"
    write_json(out, {
        "created_utc": stamp, "git": manifest.git(), "machine": manifest.machine(),
        "load": (f"pgbench -M prepared -R {rate} -j 1, scripts {pg_spread.MIX} (the services' statements, "
                 f"weighted as one iteration of the scenario), {args.duration} s per probe, measured from "
                 f"{pg_spread.SETTLE_S} s in to {pg_spread.SETTLE_S} s before its end; PostgreSQL on one "
                 "CPU, pgbench on the other"),
        "rows": rows})
    medians = pd.DataFrame(rows).groupby("clients")[FIGURES].median()
    print(f"median of {args.rounds} rounds, PostgreSQL's figures per statement ({out}):")
    print(medians.to_string())
    return 0
