"""`make bench` and `make aws-bench` take one set of knobs: their recipes name only the verb, make
hands the knobs to the harness in the environment, and the harness reads them in one place
(bankbench.cli.SETTINGS), into the same options of both commands. The AWS driver parses every one,
refusing by name those it cannot honour yet instead of dropping them."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import tomllib
from pathlib import Path
from unittest import mock

import pytest

from bankbench import cli, paths
from bankbench.commands.bench import options
from bankbench.errors import UserError
from bankbench.load import profiles
from bankbench.run.environments.aws import workload

ROOT = Path(__file__).resolve().parents[3]
MAKEFILES = (ROOT / "Makefile").read_text() + (ROOT / "infra" / "infra.mk").read_text()
# A value for each knob the Makefile's header lists (test_the_sample_covers_every_knob).
SAMPLE = {"PROFILE": "sustained", "SERVICE": "go", "USERS": "10,20", "POOL": "5", "DURATION": "7",
          "WARMUP": "3", "REPEAT": "2", "SCENARIO": "contention", "THINK_MS": "4",
          "PG_MAX_CONNECTIONS": "50", "PG_DURABLE": "off", "CHAOS": "service-kill",
          "PROFILE_CPU": "1", "CPU_PLACEMENT": "shared", "START": "warm", "RATE": "50", "TUNED": "1"}
NOT_ON_AWS = ("PG_MAX_CONNECTIONS", "PG_DURABLE", "CHAOS", "PROFILE_CPU", "CPU_PLACEMENT", "START", "RATE",
              "TUNED")
NAMES = {setting.partition("=")[0] for setting in cli.SETTINGS}
NOT_KNOBS = ("verb", "action", "env", "main")  # the Namespace's fields that are no knob of a benchmark


def documented_knobs() -> set[str]:
    """The knobs named in the Makefile's header (`# Knobs: PROFILE, ...`), ENV aside: it picks the
    environment, which aws-bench is."""
    header = re.search(r"^# Knobs: (.*?)\(see", (ROOT / "Makefile").read_text(), re.MULTILINE | re.DOTALL)
    names = re.findall(r"\b([A-Z_]{3,})(?:=|,|\s)", header.group(1).replace("#", " "))
    return set(names) - {"ENV"}


def make_dry_run(target: str, **knobs: str) -> str:
    """The line of `make -n TARGET` that runs the harness's bench."""
    out = subprocess.run(["make", "-n", target, *(f"{k}={v}" for k, v in knobs.items())], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    return next(line for line in out.splitlines() if re.search(r"-m bankbench (aws )?bench\b", line))


def parse(argv: list[str], from_make: bool = True, **knobs: str) -> argparse.Namespace:
    """`bankbench ARGV` with `knobs` in the environment and no other, as make runs it (from_make)."""
    env = {k: v for k, v in os.environ.items() if k not in NAMES and k != cli.FROM_MAKE}
    with mock.patch.dict(os.environ, {**env, **({cli.FROM_MAKE: "1"} if from_make else {}), **knobs}, clear=True):
        return cli.parser(argv).parse_args(argv)


def bench_knobs(args: argparse.Namespace) -> dict[str, object]:
    return {k: v for k, v in vars(args).items() if k not in NOT_KNOBS}


def test_the_sample_covers_every_knob() -> None:
    assert documented_knobs() == set(SAMPLE)


def options_of(parser: argparse.ArgumentParser) -> set[str]:
    """The options of `parser` and of its own verbs (aws up|bench ...)."""
    found = set()
    for action in parser._actions:
        found |= set(action.option_strings)
        for sub in action.choices.values() if isinstance(action.choices, dict) else ():
            found |= options_of(sub)
    return found


def test_each_setting_is_a_knob_of_the_makefiles_and_an_option_of_a_verb_they_run() -> None:
    verbs = set(re.findall(r"\$\(BANKBENCH\) ([a-z]+)", MAKEFILES))
    assert {"bench", "aws", "capacity", "plan"} <= verbs
    found = {verb: options_of(cli.parser([verb])) for verb in verbs}
    for setting, option in cli.SETTINGS.items():
        assert re.search(rf"\b{setting.partition('=')[0]}\b", MAKEFILES), setting
        *only, option = option.split()
        assert any(option in found[verb] for verb in only or verbs), setting


def test_the_recipes_name_only_their_verb() -> None:
    assert make_dry_run("bench", **SAMPLE) == f"{cli.FROM_MAKE}=1 .venv/bin/python -m bankbench bench"
    assert make_dry_run("aws-bench", **SAMPLE) == f"{cli.FROM_MAKE}=1 .venv/bin/python -m bankbench aws bench"
    assert make_dry_run("bench-go", SERVICE="java").endswith(" bench --service go")  # the option wins


def test_make_hands_its_knobs_to_a_recipe_in_the_environment() -> None:
    """From its command line and from its own environment alike, as it did to $(SERVICE) before."""
    out = subprocess.run(["make", "-s", "--eval", "knobs-probe: ; @printenv SERVICE TUNED", "knobs-probe",
                          "SERVICE=go"], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={**{k: v for k, v in os.environ.items() if k != "MAKEFLAGS"}, "TUNED": "1"}).stdout
    assert out.split() == ["go", "1"]


@pytest.mark.parametrize("knob", sorted(SAMPLE))
def test_each_knob_reaches_both(knob: str) -> None:
    local = bench_knobs(parse(["bench"], **{knob: SAMPLE[knob]}))
    assert local != bench_knobs(parse(["bench"])), f"{knob} changes nothing"
    assert bench_knobs(parse(["aws", "bench"], **{knob: SAMPLE[knob]})) == local


def test_only_make_runs_read_them_and_an_option_wins() -> None:
    assert parse(["bench"], from_make=False, **SAMPLE, ENV="compose") == parse(["bench"])
    assert parse(["bench", "--service", "java"], SERVICE="go").service == "java"
    assert parse(["bench"], SERVICE="").service is None  # empty: unset, as $(if $(SERVICE),...) was
    assert parse(["pgwire"]).profile == "pgwire" and parse(["pgwire"], PROFILE="smoke").profile == "smoke"
    with pytest.raises(SystemExit):
        parse(["bench"], SCENARIO="other")  # as --scenario other is refused


def test_the_driver_parses_every_knob_and_refuses_by_name_what_it_cannot_do() -> None:
    args = parse(["aws", "bench"], **SAMPLE)
    with pytest.raises(UserError) as refused:
        workload.refuse_unsupported(args)
    for flag in ("--pg-max-connections", "--non-durable", "--chaos", "--profile-cpu", "--cpu-placement",
                 "--start", "--rate", "--tuned"):
        assert flag in str(refused.value)


def test_the_driver_plans_the_levels_of_the_other_knobs() -> None:
    args = parse(["aws", "bench"], **{k: v for k, v in SAMPLE.items() if k not in NOT_ON_AWS})
    workload.refuse_unsupported(args)
    (run,) = options(args)
    planned = [level.as_dict() for level in profiles.levels(run.profile)]
    assert [level["id"] for level in planned] == [
        f"go-u{users}-p5-r{repeat}" for repeat in (1, 2) for users in (10, 20)]
    assert {(lv["duration_s"], lv["warmup_s"], lv["scenario"], lv["load_properties"]["think_ms"])
            for lv in planned} == {(7, 3, "contention", 4)}


GATLING_PROFILES = sorted(name for name in tomllib.loads(paths.PROFILES.read_text())["profiles"]
                          if profiles.load(name).generator == "gatling")


@pytest.mark.parametrize("profile", GATLING_PROFILES)
def test_the_driver_takes_a_gatling_profile(profile: str) -> None:
    """Gatling runs on the load generator's host too (environment.GatlingLoad)."""
    workload.refuse_unsupported(parse(["aws", "bench"], PROFILE=profile))
