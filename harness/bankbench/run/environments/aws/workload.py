"""A level's load on AWS: the knobs refused, its share per JMeter worker, how long it may take.

See docs/aws.md."""

import argparse
from typing import Any

from bankbench.errors import UserError
from bankbench.load.profiles import Level
from bankbench.machine.placement import SPLIT

# Plan properties that are totals: each JMeter worker runs the whole plan, so gets its share.
SHARED_PROPERTIES = ("users", "rate")
METRICS_PERIOD_S = 60  # CloudWatch's finest period for Container Insights and EC2 metrics


def refuse_unsupported(args: argparse.Namespace) -> None:
    """Refuses by name, rather than dropping, the knobs of `make bench` not honoured here yet."""
    unsupported = {
        "--pg-max-connections": args.pg_max_connections is not None,
        "--non-durable": args.non_durable,
        "--chaos": bool(args.chaos),
        "--profile-cpu": args.profile_cpu,
        "--cpu-placement other than split (every role has hosts of its own)":
            bool(set((args.cpu_placement or SPLIT).split(",")) - {SPLIT}),
        "--start aot or warm (the AOT cache and the warm-up's JMeter are local)": args.start not in (None, "cold"),
        "--tuned (the task definitions pass no settings of a level's own)": args.tuned,
        "--rate (the base rate of a profile with phases: overload, which starts warm)": args.rate is not None,
    }
    if refused := [knob for knob, set_ in unsupported.items() if set_]:
        raise UserError(f"not on AWS yet: {', '.join(refused)}; run them with ENV=native")


def worker_properties(level: Level, workers: int) -> dict[str, Any]:
    """The plan properties of each of `workers` JMeter workers; UserError unless the load splits."""
    props = level.load_properties()
    for name in SHARED_PROPERTIES:
        if props[name] % workers:
            raise UserError(f"{level.id}: {name}={props[name]} does not split over {workers} "
                            f"JMeter workers: choose levels that are multiples of {workers}, or "
                            f"another jmeter_workers")
        props[name] //= workers
    return props


def time_bound_s(level: Level) -> int:
    """How long a level may take at most: its load, plus start-up, drain and result upload."""
    return level.expected_s + 600
