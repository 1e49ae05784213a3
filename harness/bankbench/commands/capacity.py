"""`bankbench capacity` (make capacity): each contender's capacity, by a staircase of probes.

Per contender, probes of the rates about the one that holds a p99 target with errors under 0.1 %
half the time, a staircase whose every probe is kept (bankbench.run.experiments.capacity_search),
the contenders in turn with an A/A control and the pools beside the shipped one, under each CPU
placement asked, a run each (a series), and under the first of them (at the shipped settings) the
smallest heap that holds a rate each held; then each run's summaries and its figures, and its
capacities in capacity.toml (bankbench.results.capacities), where the profiles run at a share of
capacity read them.

See docs/method.md#capacity-the-searchs-design."""

import argparse
import signal

from bankbench import config, paths, registry
from bankbench.analyse import levels, paired
from bankbench.commands.bench import interrupted
from bankbench.commands.plan import add_probe_arguments, add_tuned_argument, overrides, placed
from bankbench.errors import UserError
from bankbench.load import profiles
from bankbench.machine import placement
from bankbench.publish import terminal
from bankbench.results import capacities, probes, runs
from bankbench.run.environments.interface import Options
from bankbench.run.experiments import capacity_search

PROFILE = capacity_search.PROFILE
BUDGET_MIN = capacity_search.BUDGET_MIN
# service-alone: capacity per service core, what a budget needs; split: a core shared with PG.
PLACEMENTS = ("service-alone", "split")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--service", help=f"comma list of {', '.join(registry.names())} (default: all)")
    p.add_argument("--p99-ms", type=float, default=probes.P99_MS,
                   help=f"the p99 target in ms (default {probes.P99_MS:g})")
    p.add_argument("--budget-min", type=float, default=BUDGET_MIN,
                   help=f"the time the search may take under each placement, in minutes (default {BUDGET_MIN})")
    p.add_argument("--heaps", help="the heap sizes of the sweep under the first placement, MB, a comma list "
                                   f"(default {','.join(map(str, capacity_search.HEAPS_MB))}; none with --tuned)")
    p.add_argument("--rates", help="the ladder of rates (iterations/s) the search climbs to its first miss, a "
                                   f"comma list (default: profile {PROFILE}'s `users`)")
    p.add_argument("--probes", type=int, help="rate probes per contender, the ladder's included (default: profile "
                                              f"{PROFILE}'s `search.probes`)")
    p.add_argument("--control", help="the service entered twice, the A/A control (`<service>-again`); \"\": none "
                                     f"(default: profile {PROFILE}'s `search.control`, if among the services)")
    add_probe_arguments(p, "confirmations of a found heap")
    p.add_argument("--cpu-placement", default=",".join(PLACEMENTS),
                   help=f"a comma list of CPU placements, a run each (default: {','.join(PLACEMENTS)})")
    add_tuned_argument(p)
    p.add_argument("--long", type=int, default=capacity_search.LONG_S,
                   help="measured seconds of the probe at each rate found after the staircase, one more probe "
                        f"(default {capacity_search.LONG_S}; 0: none)")
    p.add_argument("--with-tuned", action="store_true",
                   help="each service at the shipped settings and at its tuned ones, as contenders of one search, "
                        "in turn (make capacity TUNED=both); one tuned to its shipped settings is probed once")


def heaps_to_sweep(args: argparse.Namespace) -> tuple[int, ...]:
    """The sweep's heaps: none at the tuned settings, which name their heap (make tune starts from
    the shipped sweep's), so asking for a sweep there is a mistake, not something to drop quietly."""
    if args.heaps is None:
        return () if args.tuned else capacity_search.HEAPS_MB
    heaps = tuple(profiles.int_list(args.heaps) or ())  # --heaps "": no sweep
    if heaps and args.tuned:
        raise UserError("--heaps with --tuned: the tuned settings name their heap ([tuned.<service>] of "
                        "tuned.toml); sweep heaps at the shipped settings, without --tuned")
    return heaps


def main(args: argparse.Namespace) -> int:
    profile = profiles.load(PROFILE, {**overrides(args), "users": profiles.int_list(args.rates)},
                            tuned=args.tuned or args.with_tuned)
    profile, series = placed(profile, args.cpu_placement.split(","))
    signal.signal(signal.SIGTERM, interrupted)
    heaps = heaps_to_sweep(args)
    setup = capacity_search.Setup.of(profile, args.control, args.probes)
    entrants = setup.contenders(profile, args.tuned, args.with_tuned)
    # max_connections: room for every contender's pool, each kept warm, and the harness's own.
    max_connections = sum(c.pool_in(profile) for c in entrants) + config.max_connections() - config.DEFAULT_POOL_SIZE
    for i, mode in enumerate(profile.placements):
        opts = Options(profile=profile, placement=placement.plan(mode), durable=True, dashboard=False,
                       pg_max_connections=max_connections, series=series,
                       with_tuned=args.with_tuned)
        # The heap a service needs at its capacity is its own, wherever its CPUs are: swept once.
        run_dir = capacity_search.run(opts, entrants, setup, probes.Target(p99_ms=args.p99_ms),
                                      args.budget_min * 60, heaps if i == 0 else (), long_s=args.long)
        levels.summarize_run(run_dir)
        run = runs.load_run(run_dir)
        capacities.append(paired.record(run))  # what overload, soak and tune run at a share of
        print(f"results in {run_dir} ({mode}); its capacities added to {paths.CAPACITIES.name}\n"
              f"{terminal.capacities(run)}")
    return 0
