"""`bankbench pgwire` (make pgwire): what one request costs PostgreSQL.

Each service at the same rate with its port captured (bankbench.run.experiments.pg_capture); prints
the figures per level.

See docs/request-cost.md#how-it-is-measured-make-pgwire."""

import argparse
import signal

import pandas as pd

from bankbench.analyse import levels
from bankbench.commands import bench
from bankbench.results import files
from bankbench.run.experiments import pg_capture

COLUMNS = {"pg_cpu_ms_per_request": "PG CPU ms", "service_cpu_ms_per_request": "service CPU ms",
           "backends": "backends", "pg_voluntary_switches": "PG switches", "segments_to_pg": "segments in",
           "new_connections": "new conns"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    bench.add_bench_arguments(p)
    p.set_defaults(profile="pgwire")


def main(args: argparse.Namespace) -> int:
    (opts,) = bench.options(args)[:1]
    signal.signal(signal.SIGTERM, bench.interrupted)  # a stopped run is marked, as bench's
    run_dir = pg_capture.run(opts)
    levels.summarize_run(run_dir)  # as make bench's: the report reads the run's summary
    record = files.pgwire(run_dir)
    rows = [{"level": level, **{label: figures.get(key) for key, label in COLUMNS.items()},
             **{f"{name} in": count for name, count in figures["to_pg"].items()}}
            for level, figures in record.levels.items()]
    print(f"per request, at {record.rate:g} iterations/s ({run_dir}):")
    print(pd.DataFrame(rows).set_index("level").to_string())
    return 0
