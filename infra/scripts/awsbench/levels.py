"""The levels of a run, as the harness plans them, and what changes when N workers share one."""

from __future__ import annotations

import argparse
from typing import Any

from bankbench import profiles, runs
from bankbench.commands.plan import profile_from_args
from bankbench.errors import UserError
from bankbench.placement import SHARED

# Plan properties that are totals: each JMeter worker runs the whole plan, so gets its share.
SHARED_PROPERTIES = ("users", "rate")
METRICS_PERIOD_S = 60  # CloudWatch's finest period for Container Insights and EC2 metrics


def plan(args: argparse.Namespace) -> tuple[profiles.Profile, list[dict]]:
    """The profile that the knobs of `args` make, and its levels as the harness plans them;
    refuses the knobs this environment cannot honour yet, rather than dropping them."""
    unsupported = {
        "--pg-max-connections": args.pg_max_connections is not None,
        "--non-durable": args.non_durable,
        "--chaos": bool(args.chaos),
        "--profile-cpu": args.profile_cpu,
        "--cpu-placement shared (every role has hosts of its own)": args.cpu_placement == SHARED,
    }
    if refused := [knob for knob, set_ in unsupported.items() if set_]:
        raise UserError(f"not on AWS yet: {', '.join(refused)}; run them with ENV=native")
    profile = profile_from_args(args)
    return profile, [level.as_dict() for level in profiles.levels(profile)]


def worker_properties(level: dict, workers: int) -> dict[str, Any]:
    """The plan properties each of `workers` JMeter workers gets, so that together they run the
    level's load; raises UserError when the load does not split evenly."""
    props = dict(level["jmeter_properties"])
    for name in SHARED_PROPERTIES:
        if props[name] % workers:
            raise UserError(f"{level['id']}: {name}={props[name]} does not split over {workers} "
                            f"JMeter workers: choose levels that are multiples of {workers}, or "
                            f"another jmeter_workers")
        props[name] //= workers
    return props


def level_document(level: dict, started_ms: int, ended_ms: int, pg_max_connections: int,
                   workers: int) -> dict[str, Any]:
    """level.json, with what an AWS run adds: its metrics' period and JMeter workers."""
    return runs.level_document(level, started_ms, ended_ms, pg_max_connections,
                               metrics_period_s=METRICS_PERIOD_S, jmeter_workers=workers)


def time_bound_s(level: dict) -> int:
    """How long a level may take at most: its load, plus start-up, drain and result upload."""
    return level["expected_s"] + 600
