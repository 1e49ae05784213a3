"""The levels of a run, as the harness plans them, and what changes when N workers share one."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from bankbench.errors import UserError

# Plan properties that are totals: each JMeter worker runs the whole plan, so gets its share.
SHARED_PROPERTIES = ("users", "rate")
METRICS_PERIOD_S = 60  # CloudWatch's finest period for Container Insights and EC2 metrics


def plan(profile: str, service: str, overrides: dict[str, str | None]) -> list[dict]:
    """`bankbench plan --json`: the levels of `profile` for `service` (the harness decides)."""
    args = [sys.executable, "-m", "bankbench", "plan", "--json", "--profile", profile, "--service", service]
    for name, value in overrides.items():
        if value:
            args += [f"--{name.replace('_', '-')}", value]
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        raise UserError(done.stderr.strip() or "bankbench plan failed")
    return json.loads(done.stdout)


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
    """level.json (results/LAYOUT.md), with the figures of an AWS run."""
    return {
        **{k: v for k, v in level.items() if k != "id"},
        "pg_max_connections": pg_max_connections,
        "started_ms": started_ms,
        "measure_from_ms": started_ms + 1000 * level["measure_offset_s"],
        "ended_ms": ended_ms,
        "metrics_period_s": METRICS_PERIOD_S,
        "jmeter_workers": workers,
    }


def time_bound_s(level: dict) -> int:
    """How long a level may take at most: its load, plus start-up, drain and result upload."""
    return level["expected_s"] + 600
