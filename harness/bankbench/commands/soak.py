"""`bankbench soak` (make soak): each service for minutes below its capacity, watched.

Each warm service in turn, under the CPU placement the verdict ranks, at profile soak's share of its
capacity (make capacity's, as make overload takes it) or at RATE=, in Gatling's open model for
MINUTES=; watched minute by minute (bankbench.run.experiments.soak_run), judged as each ends
(bankbench.analyse.soak_figures) into soak.json, the run goes on past a service that fails; then the
run's summaries, a table, and the run's page with its charts per minute in its report folder
(bankbench.publish.own_run).

See docs/benchmarks.md#endurance-make-soak."""

import argparse
import dataclasses
import signal
from pathlib import Path

from bankbench import config, registry
from bankbench.analyse import levels, soak_figures, trends
from bankbench.commands.bench import interrupted
from bankbench.commands.plan import placed, with_base_rates
from bankbench.commands.tune import PLACEMENT
from bankbench.errors import UserError
from bankbench.load import profiles
from bankbench.load.profiles import Level
from bankbench.machine import placement
from bankbench.publish import own_run, soak_page
from bankbench.results import files, probes, runs, soak_record
from bankbench.results.soak_record import Failure, Soak, Watched
from bankbench.run.environments.interface import Options
from bankbench.run.experiments import soak_run

PROFILE = "soak"  # profiles.toml: the minutes and the share of capacity


def add_arguments(p: argparse.ArgumentParser) -> None:
    seconds, share = profiles.load(PROFILE).phases[0]
    p.add_argument("--service", help=f"comma list of {', '.join(registry.names())} (default: all)")
    p.add_argument("--minutes", type=int, help=f"measured minutes per service (default {seconds // 60})")
    p.add_argument("--rate", type=int, help="the soak's rate, iterations/s, for every service (default: "
                                            f"{share * 100:g} %% of each one's capacity, make capacity's)")
    p.add_argument("--cpu-placement", default=PLACEMENT,
                   help=f"the CPU placement, whose capacity runs give the rates (default: {PLACEMENT})")
    p.add_argument("--p99-ms", type=float, default=probes.P99_MS,
                   help=f"the p99 target every minute must hold, ms (default {probes.P99_MS:g})")


def soak_profile(args: argparse.Namespace, mode: str) -> profiles.Profile:
    """Profile soak with its one phase MINUTES long, at its share of each capacity, or all at RATE."""
    profile = profiles.load(PROFILE, {"services": args.service.split(",") if args.service else None})
    profile, _ = placed(profile, [mode])
    seconds, share = profile.phases[0]
    if args.minutes is not None:
        if args.minutes < 1:
            raise UserError(f"MINUTES={args.minutes}: a soak runs one minute or more")
        seconds = 60 * args.minutes
    profile = dataclasses.replace(profile, phases=[[seconds, 1.0 if args.rate else share]], duration_s=int(seconds))
    if args.rate is None:
        return with_base_rates(profile, None, mode)
    rates = dict.fromkeys(profile.services, args.rate)
    return profiles.with_rates(profile, rates, f"RATE={args.rate}, for every service")


def main(args: argparse.Namespace) -> int:
    mode = placement.check(args.cpu_placement)
    profile = soak_profile(args, mode)
    target = probes.Target(p99_ms=args.p99_ms)
    share = None if args.rate else profile.phases[0][1]
    soak = Soak(profile.duration_s // 60, share, profile.rate_source, mode, target.p99_ms, target.max_error_pct,
                soak_figures.TOLERANCES)

    def judge(run_dir: Path, level: Level, failed: str) -> None:
        found = judged(files.level_dir(run_dir, level.id), level, target, failed)
        soak.services[level.service] = found
        soak_record.write(run_dir, soak)
        print(soak_page.verdict_line(found, soak), flush=True)

    opts = Options(profile=profile, placement=placement.plan(mode), pg_max_connections=config.max_connections(),
                   durable=True, dashboard=False)
    signal.signal(signal.SIGTERM, interrupted)
    run_dir = soak_run.run(opts, judge)
    levels.summarize_run(run_dir)
    print(f"{soak_page.table(soak_record.read(run_dir))}\nresults in {run_dir}")
    print(own_run.ending(runs.load_run(run_dir)))  # its page has the charts per minute
    return 0


def judged(level_dir: Path, level: Level, target: probes.Target, failed: str) -> Watched:
    """The service's soak; one whose level left no figures fails as a run, with why."""
    rate = level.schedule()[-1][1]
    try:
        return soak_figures.watched(level_dir, target, rate, failed)
    except UserError as err:
        return Watched(level.service, level.id, rate, error=failed or str(err), failures=(Failure(trends.RUN, None),))
