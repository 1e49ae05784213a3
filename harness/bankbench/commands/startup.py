"""`bankbench startup` (make startup): each service's start-up time, cold and from AOT.

Each service's start-up time is from its process's start to its first 200, cold and from a JVM's AOT
cache, over several starts (bankbench.run.experiments.start_times); written to
results/startup/<stamp>.json, whose newest the report's first table shows.

See docs/benchmarks.md#start-up-time-make-startup."""

import argparse
import statistics
import tempfile
from pathlib import Path

from bankbench import registry, runid
from bankbench.analyse import estimates
from bankbench.machine import placement
from bankbench.measure import manifest
from bankbench.results import startup_record
from bankbench.run.experiments import start_times


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--service", help=f"comma list of {', '.join(registry.names())} (default: all)")
    p.add_argument("--starts", type=int, default=10, help="processes started per service and start (default 10)")


def main(args: argparse.Namespace) -> int:
    services = args.service.split(",") if args.service else list(registry.names())
    stamp = runid.stamp()
    with tempfile.TemporaryDirectory(prefix="bankbench-startup-") as logs:
        seconds, postgresql = start_times.measure(services, args.starts, Path(logs))
    path = startup_record.write(stamp, {
        "created_utc": stamp, "git": manifest.git(), "machine": manifest.machine(),
        "versions": manifest.versions(postgresql),
        "cpu_placement": placement.plan(placement.default_mode()).as_dict(),
        "poll_s": start_times.POLL_S, "seconds": seconds})
    for name, kinds in seconds.items():
        for kind, values in kinds.items():
            low, high = estimates.median_interval(values)
            print(f"{name:13} {kind:9} median {statistics.median(values):.3f} s [{low:.3f}-{high:.3f}], "
                  f"{len(values)} starts")
    print(f"written to {path.relative_to(startup_record.FOLDER.parent.parent)}")
    return 0
