"""`bankbench plan`: the levels a benchmark would run, without running them (also used on AWS).

See docs/benchmarks.md#profiles."""

import argparse
import dataclasses
import json
from typing import Any

from bankbench import config, paths, registry, runid
from bankbench.analyse import base_rates
from bankbench.errors import UserError
from bankbench.load import profiles
from bankbench.machine import placement
from bankbench.run.experiments import capacity_search


def add_profile_arguments(p: argparse.ArgumentParser) -> None:
    """The knobs shared by `plan` and `bench` (the Makefile's PROFILE=, USERS=, POOL= ...)."""
    p.add_argument("--profile", default="local", help="a profile of profiles.toml")
    p.add_argument("--service", help=f"comma list of {', '.join(registry.names())}")
    p.add_argument("--users", help="comma list, e.g. 1000,4000 (open model: arrivals per second)")
    p.add_argument("--pool", help=f"comma list of pool sizes ({config.POOL_SIZE}; default {config.DEFAULT_POOL_SIZE})")
    p.add_argument("--repeat", type=int, help="how many times to run the whole matrix")
    p.add_argument("--duration", type=int, help="measured seconds per level")
    p.add_argument("--warmup", type=int, help="seconds after the ramp-up left out of the figures")
    p.add_argument("--scenario", choices=profiles.SCENARIOS)
    p.add_argument("--think-ms", type=int, help="pause between a user's requests")
    p.add_argument("--start", choices=tuple(profiles.STARTS),
                   help="how each level's service starts: cold, aot (JVM with its AOT cache), warm")
    p.add_argument("--rate", type=int, help="a profile with phases (overload): the base rate of every "
                   "service, iterations/s (default: each one's capacity in capacity.toml, make capacity's)")
    add_tuned_argument(p)


def add_tuned_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tuned", action="store_true",
                   help=f"each service at its tuned settings, its [{profiles.TUNED}.<service>] table of tuned.toml "
                        "(make tune writes them); default: the shipped settings")


def add_probe_arguments(p: argparse.ArgumentParser, repeat_help: str) -> None:
    """--repeat, --duration and --warmup of `capacity` and `tune`, over their profile's probes."""
    the_profiles = "(default: the profile's)"
    p.add_argument("--repeat", type=int, help=f"{repeat_help} {the_profiles}")
    p.add_argument("--duration", type=int, help=f"measured seconds of each probe {the_profiles}")
    p.add_argument("--warmup", type=int, help="seconds of each probe's rate before its measured "
                                             f"window, left out of the figures {the_profiles}")


def overrides(args: argparse.Namespace) -> dict[str, Any]:
    return {"services": args.service.split(",") if args.service else None, "repeat": args.repeat,
            "duration_s": args.duration, "warmup_s": args.warmup}


def profile_from_args(args: argparse.Namespace) -> profiles.Profile:
    return profiles.load(args.profile, {
        **overrides(args), "users": profiles.int_list(args.users),
        "pools": profiles.int_list(args.pool), "scenario": args.scenario,
        "think_ms": args.think_ms, "start": args.start}, tuned=args.tuned)


def placed(profile: profiles.Profile, chosen: list[str]) -> tuple[profiles.Profile, str]:
    """`profile` under the placements `chosen` (none: the default), and its series if several."""
    modes = [placement.check(mode.strip()) for mode in chosen] or [placement.default_mode()]
    series = runid.series_id(profile.name) if len(modes) > 1 else ""
    return dataclasses.replace(profile, placements=modes), series


def with_base_rates(profile: profiles.Profile, rate: int | None, mode: str) -> profiles.Profile:
    """A phased profile at `rate` for all, else at each one's capacity as the report shows it."""
    if not profile.phased:
        if rate is not None:
            raise UserError(f"RATE= is the base rate of a profile with phases (overload); {profile.name} has "
                            "none: USERS= sets its rates")
        return profile
    if rate is not None:
        return profiles.with_rates(profile, dict.fromkeys(profile.services, rate), f"RATE={rate}, for every service")
    if (found := base_rates.rates(mode, tuned=bool(profile.tuned))) is None:
        capacity = "make capacity TUNED=1" if profile.tuned else "make capacity"
        raise UserError(f"profile {profile.name} needs each service's base rate: run `{capacity} "
                        f"CPU_PLACEMENT={mode}` first (it writes {paths.CAPACITIES.name}), "
                        "or pass RATE= (iterations/s)")
    return profiles.with_rates(profile, found.rates, found.source)


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_profile_arguments(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")


def main(args: argparse.Namespace) -> int:
    profile = profile_from_args(args)
    first_run = profile.placements[0] if profile.placements else placement.default_mode()
    profile = with_base_rates(profile, args.rate, first_run)
    levels = profiles.levels(profile)
    if args.json:
        print(json.dumps([level.as_dict() for level in levels], indent=2))
        return 0
    runs = max(len(profile.placements), 1)
    total = runs * sum(level.expected_s for level in levels)
    print(f"profile {profile.name} ({profile.model}): {profile.description}")
    if profile.name == capacity_search.PROFILE:  # a search, not a list of levels: make capacity's defaults
        setup = capacity_search.Setup.of(profile)
        print(capacity_search.describe(profile, setup.contenders(profile, bool(profile.tuned), False), setup,
                                       () if profile.tuned else capacity_search.HEAPS_MB,
                                       capacity_search.BUDGET_MIN * 60))
        return 0
    if profile.phased:
        print(f"base rates: {profiles.rates_text(profile.rates, profile.rate_source)}")
    for i, level in enumerate(levels, 1):
        print(f"  {i:>3}/{len(levels)} {level.id:<28} up to {level.expected_s} s")
    if runs > 1:
        print(f"once per CPU placement, a run each: {', '.join(profile.placements)}")
    print(f"load time up to {total // 60} min {total % 60} s, plus start-up per level")
    return 0
