"""`bankbench tune` (make tune): per service, at its capacity rate under a CPU placement (from the
newest make capacity run at the shipped settings), the pool size and then the knobs of its
registry entry, one at a time, the best value kept (bankbench.run.experiments.tuning); then the
run's summaries, and the [tuned.<service>] tables for profiles.toml, which TUNED=1 runs with."""

from __future__ import annotations

import argparse
import dataclasses
import signal

from bankbench import config, registry
from bankbench.analyse import tuned
from bankbench.commands.bench import interrupted
from bankbench.errors import UserError
from bankbench.load import profiles
from bankbench.results import files, summaries
from bankbench.results.runs import TUNING_FILE
from bankbench.run.environments.interface import Options
from bankbench.run.experiments import tuning
from bankbench.tools import placement

PROFILE = "tune"  # profiles.toml: the shape of each probe (make capacity's)
# Per service 8 or 9 values of ~3 probes of ~40 s, and a warm-up of each value's new process: 25-40 min.
BUDGET_MIN = 120
POOLS = (4, 8, 16, 32, config.DEFAULT_POOL_SIZE)  # HikariCP's advice is a few connections per core
PLACEMENT = "service-alone"  # the capacity a budget reads: the service alone on its core


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--service", help=f"comma list of {', '.join(registry.names())} (default: all)")
    p.add_argument("--p99-ms", type=float, help="the p99 target in ms (default: the capacity run's)")
    p.add_argument("--budget-min", type=float, default=BUDGET_MIN,
                   help=f"the time the sweeps may take, in minutes (default {BUDGET_MIN})")
    p.add_argument("--pools", default=",".join(map(str, POOLS)), help="the pool sizes of the sweep, a comma list")
    p.add_argument("--repeat", type=int, help="probes of each value (default: the profile's)")
    p.add_argument("--duration", type=int, help="measured seconds of each probe (default: the profile's)")
    p.add_argument("--warmup", type=int, help="seconds of each probe's rate before its measured window, left out "
                                             "of the figures (default: the profile's)")
    p.add_argument("--cpu-placement", default=PLACEMENT,
                   help=f"the CPU placement, whose capacity runs give the rates (default: {PLACEMENT})")


def main(args: argparse.Namespace) -> int:
    profile = profiles.load(PROFILE, {"services": args.service.split(",") if args.service else None,
                                      "repeat": args.repeat, "duration_s": args.duration,
                                      "warmup_s": args.warmup})
    mode = placement.check(args.cpu_placement)
    found = tuned.bases(mode)
    if missing := [service for service in profile.services if service not in found]:
        raise UserError(f"no capacity at the shipped settings under {mode} for {', '.join(missing)}: run "
                        f"`make capacity SERVICE={','.join(missing)}` first, or leave it out (SERVICE=)")
    profile = dataclasses.replace(profile, placements=[mode])  # what the manifest records
    opts = Options(profile=profile, placement=placement.plan(mode), pg_max_connections=config.max_connections(),
                   durable=True, dashboard=False)
    signal.signal(signal.SIGTERM, interrupted)
    run_dir = tuning.run(opts, found, args.budget_min * 60, profiles.int_list(args.pools) or (), args.p99_ms)
    summaries.summarize_run(run_dir)
    print(f"results in {run_dir}; each service's settings, for profiles.toml (then TUNED=1):\n\n"
          f"{tuning.tables(files.record(run_dir, TUNING_FILE), run_dir.name)}")
    return 0
