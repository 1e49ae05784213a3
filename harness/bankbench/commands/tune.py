"""`bankbench tune` (make tune): each service's settings, found by duels of CPU per request.

Per service, under the CPU placement the verdict ranks, at a rate below its capacity at the shipped
settings (capacity.toml's over the make capacity passes there), the pool size and then the knobs
of its registry entry, one at a time, each value in a duel with the incumbent (bankbench.run.experiments.tuning);
then the run's summaries, and the settings found written to tuned.toml, which TUNED=1 runs with.

See docs/benchmarks.md#each-stack-at-its-best-settings-make-tune-then-tunedboth."""

import argparse
import dataclasses
import signal

from bankbench import config, paths, registry
from bankbench.analyse import levels, tuned
from bankbench.commands.bench import interrupted
from bankbench.commands.plan import add_probe_arguments, overrides
from bankbench.errors import UserError
from bankbench.load import profiles
from bankbench.machine import placement
from bankbench.publish import tables
from bankbench.results.probes import Tuned, Tuning
from bankbench.run.environments.interface import Options
from bankbench.run.experiments import tuning

PROFILE = "tune"  # profiles.toml: the shape of each probe
BUDGET_MIN = 360  # per service 9 (go) to 13 (java) duels of 6 probes a side, ~10 min each: 1.5-2.5 h
POOLS = (4, 8, 16, 32, config.DEFAULT_POOL_SIZE)  # HikariCP's advice is a few connections per core
PLACEMENT = "split"  # the placement the verdict ranks capacity under on this bed


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--service", help=f"comma list of {', '.join(registry.names())} (default: all)")
    p.add_argument("--budget-min", type=float, default=BUDGET_MIN,
                   help=f"the time the duels may take, in minutes (default {BUDGET_MIN})")
    p.add_argument("--pools", default=",".join(map(str, POOLS)), help="the pool sizes of the sweep, a comma list")
    add_probe_arguments(p, "probes of each value in a duel")
    p.add_argument("--knobs", help=f"comma list of the knobs to tune ({tuning.POOL} and those of the services' "
                                   "entries; default: all); the others start where the newest run that searched "
                                   "them left them, else at their shipped values, named as not searched; a service "
                                   "with none of them is left out")
    p.add_argument("--cpu-placement", default=PLACEMENT,
                   help=f"the CPU placement, whose capacity runs give the rates (default: {PLACEMENT})")


def main(args: argparse.Namespace) -> int:
    profile = profiles.load(PROFILE, overrides(args))
    knobs = tuple(args.knobs.split(",")) if args.knobs else None
    services = with_knobs(profile.services, knobs)
    mode = placement.check(args.cpu_placement)
    found = tuned.bases(mode)
    if missing := [service for service in services if service not in found]:
        raise UserError(f"no capacity at the shipped settings under {mode} for {', '.join(missing)}: run "
                        f"`make capacity SERVICE={','.join(missing)} CPU_PLACEMENT={mode}` first, or leave it out "
                        "(SERVICE=)")
    pools = profiles.int_list(args.pools) or ()
    earlier = {service: tuned.searched(service, mode) for service in services} if knobs else None
    profile = dataclasses.replace(profile, services=services, placements=[mode])  # what the manifest records
    # Two warm processes at once, the incumbent's and the candidate's, each holding its pool.
    headroom = config.max_connections() - config.DEFAULT_POOL_SIZE
    opts = Options(profile=profile, placement=placement.plan(mode), durable=True, dashboard=False,
                   pg_max_connections=2 * max((*pools, config.DEFAULT_POOL_SIZE)) + headroom)
    signal.signal(signal.SIGTERM, interrupted)
    run_dir = tuning.run(opts, found, args.budget_min * 60, pools, knobs, earlier)
    levels.summarize_run(run_dir)
    records = Tuning.read(run_dir).services
    profiles.write_tuned({service: dataclasses.replace(record.tuned, found_by=found_by(run_dir.name, mode, record))
                          for service, record in records.items() if record.tuned is not None})
    print(f"results in {run_dir}; the settings found are in {paths.TUNED.name} (TUNED=1 runs with them)")
    return 0


def with_knobs(services: list[str], knobs: tuple[str, ...] | None) -> list[str]:
    """The services with any of `knobs`; the others keep their tuned.toml tables as they are."""
    if knobs is None:
        return services
    if unknown := sorted(set(knobs) - {tuning.POOL}.union(*(registry.get(s).tune for s in services))):
        raise UserError(f"no knob {', '.join(unknown)} for {', '.join(services)}: see `tune` in services.yaml")
    having = [s for s in services if tuning.POOL in knobs or set(knobs) & set(registry.get(s).tune)]
    if left_out := [s for s in services if s not in having]:
        print(f"bankbench tune: {', '.join(left_out)} left out: none of {', '.join(knobs)} is its knob", flush=True)
    return having


def found_by(run_id: str, mode: str, record: Tuned) -> str:
    """A tuned.toml table's `found_by`: the run, where it tuned, and tables.knob_notes."""
    return "; ".join([f"make tune, run {run_id} ({mode}), at {record.rate} it/s, capacity {record.capacity} "
                      f"of {record.run}", *tables.knob_notes(record)])
