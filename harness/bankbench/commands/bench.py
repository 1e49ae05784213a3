"""`bankbench bench`: run a benchmark profile and print the comparison (make bench*).

See docs/benchmarks.md#the-commands and docs/benchmarks.md#how-a-level-runs."""

import argparse
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

from bankbench import config
from bankbench.commands import plan
from bankbench.errors import UserError
from bankbench.machine import placement
from bankbench.run import runner
from bankbench.run.environments.compose import Compose
from bankbench.run.environments.interface import Env, Options
from bankbench.run.environments.native import Native
from bankbench.run.experiments import chaos

LOCAL: dict[str, type[Env[Any]]] = {"native": Native, "compose": Compose}  # the environments of --env


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--env", choices=tuple(LOCAL), default="native",
                   help="native: local processes (default); compose: docker-compose.yml")
    add_bench_arguments(p)


def add_bench_arguments(p: argparse.ArgumentParser) -> None:
    """The knobs `make bench` and `make aws-bench` share (cli.SETTINGS names each's knob)."""
    plan.add_profile_arguments(p)
    p.add_argument("--pg-max-connections", type=int,
                   help="PostgreSQL max_connections (default: db/postgresql.conf's)")
    p.add_argument("--non-durable", action="store_true",
                   help="fsync and synchronous_commit off: faster, labelled non-durable")
    p.add_argument("--profile-cpu", action="store_true",
                   help="record the service's CPU per level and draw it as a flame graph")
    p.add_argument("--cpu-placement",
                   help="a comma list of CPU placements, each run as a run of its own: split: the "
                        "load generator on its own CPU(s), the service and PostgreSQL on the others; "
                        "service-alone: the service on its own, PostgreSQL with the load generator; "
                        "shared: all on every CPU (default: the profile's placements, else "
                        f"{placement.DEFAULT} where there are 2 CPUs or more)")
    p.add_argument("--no-dashboard", action="store_true", help="skip JMeter's HTML dashboards")
    p.add_argument("--chaos", default="", help="faults struck mid-level, a comma list of "
                   f"{', '.join(chaos.FAULTS)} (default: none)")


def options(args: argparse.Namespace) -> list[Options]:
    """A run per CPU placement (a series, if several), all planned before the first starts."""
    profile = plan.profile_from_args(args)
    chosen = args.cpu_placement.split(",") if args.cpu_placement else profile.placements
    profile, series = plan.placed(profile, chosen)
    return [Options(profile=plan.with_base_rates(profile, args.rate, mode),
                    placement=placement.plan(mode),
                    pg_max_connections=args.pg_max_connections or config.max_connections(),
                    durable=not args.non_durable, dashboard=not args.no_dashboard,
                    chaos=chaos.parse(args.chaos), profile_cpu=args.profile_cpu, series=series)
            for mode in profile.placements]


def main(args: argparse.Namespace) -> int:
    if args.env == "compose":
        require_docker_engine()
    run_dirs = run_in(LOCAL[args.env], args)
    print(f"results in {', '.join(map(str, run_dirs))}; next: bankbench summarize "
          f"{' '.join(map(str, run_dirs))}")
    return 0


def run_in(env: type[Env[Any]], args: argparse.Namespace) -> list[Path]:
    """A run per CPU placement in `env`; cleans up (and marks the run) on SIGTERM as on Ctrl-C."""
    signal.signal(signal.SIGTERM, interrupted)
    return [runner.run(opts, env) for opts in options(args)]


def interrupted(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


def require_docker_engine() -> None:
    if not shutil.which("docker"):
        raise UserError("ENV=compose needs Docker: no `docker` command here; use ENV=native")
    if subprocess.run(["docker", "info"], capture_output=True).returncode != 0:
        raise UserError("ENV=compose needs a running Docker engine, and none answers here "
                        "(`docker info` failed); use ENV=native (the default)")
    if subprocess.run(["docker", "compose", "version"], capture_output=True).returncode != 0:
        raise UserError("ENV=compose needs Docker's compose v2 plugin (`docker compose`), which "
                        "this Docker lacks: install docker-compose-plugin (Debian 13: docker-compose)")
