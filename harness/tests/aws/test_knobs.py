"""`make bench` and `make aws-bench` take one list of knobs (the Makefile's BENCH_KNOBS): each knob
reaches both commands alike, and the AWS driver parses every one, refusing by name those it cannot
honour yet instead of dropping them."""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import tomllib
from pathlib import Path

import pytest

from bankbench import cli, paths
from bankbench.commands.bench import options
from bankbench.errors import UserError
from bankbench.load import profiles
from bankbench.run.environments.aws import workload

ROOT = Path(__file__).resolve().parents[3]
# A value for each knob the Makefile's header lists (test_the_sample_covers_every_knob).
SAMPLE = {"PROFILE": "sustained", "SERVICE": "go", "USERS": "10,20", "POOL": "5", "DURATION": "7",
          "WARMUP": "3", "REPEAT": "2", "SCENARIO": "contention", "THINK_MS": "4",
          "PG_MAX_CONNECTIONS": "50", "PG_DURABLE": "off", "CHAOS": "service-kill",
          "PROFILE_CPU": "1", "CPU_PLACEMENT": "shared", "START": "warm", "RATE": "50", "TUNED": "1"}
NOT_ON_AWS = ("PG_MAX_CONNECTIONS", "PG_DURABLE", "CHAOS", "PROFILE_CPU", "CPU_PLACEMENT", "START", "RATE",
              "TUNED")


def documented_knobs() -> set[str]:
    """The knobs named in the Makefile's header (`# Knobs: PROFILE, ...`), ENV aside: it picks the
    environment, which aws-bench is."""
    header = re.search(r"^# Knobs: (.*?)\(see", (ROOT / "Makefile").read_text(), re.MULTILINE | re.DOTALL)
    names = re.findall(r"\b([A-Z_]{3,})(?:=|,|\s)", header.group(1).replace("#", " "))
    return set(names) - {"ENV"}


def bench_arguments(target: str, **knobs: str) -> list[str]:
    """The arguments `make -n TARGET` gives the bench command, `--env` aside."""
    out = subprocess.run(["make", "-n", target, *(f"{k}={v}" for k, v in knobs.items())], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    line = next(line for line in out.splitlines() if re.search(r"-m bankbench (aws )?bench ", line))
    args = shlex.split(line.split(" bench ", 1)[1])
    if "--env" in args:
        at = args.index("--env")
        del args[at:at + 2]
    return args


def aws_bench(args: list[str]) -> argparse.Namespace:
    """`bankbench aws bench ARGS`, parsed."""
    argv = ["aws", "bench", *args]
    return cli.parser(argv).parse_args(argv)


def test_the_sample_covers_every_knob() -> None:
    assert documented_knobs() == set(SAMPLE)


@pytest.mark.parametrize("knob", sorted(SAMPLE))
def test_each_knob_reaches_both(knob: str) -> None:
    local = bench_arguments("bench", **{knob: SAMPLE[knob]})
    assert local != bench_arguments("bench"), f"{knob} changes nothing"
    assert bench_arguments("aws-bench", **{knob: SAMPLE[knob]}) == local


def test_the_driver_parses_every_knob_and_refuses_by_name_what_it_cannot_do() -> None:
    args = aws_bench(bench_arguments("aws-bench", **SAMPLE))
    with pytest.raises(UserError) as refused:
        workload.refuse_unsupported(args)
    for flag in ("--pg-max-connections", "--non-durable", "--chaos", "--profile-cpu", "--cpu-placement",
                 "--start", "--rate", "--tuned"):
        assert flag in str(refused.value)


def test_the_driver_plans_the_levels_of_the_other_knobs() -> None:
    knobs = {k: v for k, v in SAMPLE.items() if k not in NOT_ON_AWS}
    args = aws_bench(bench_arguments("aws-bench", **knobs))
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
    workload.refuse_unsupported(aws_bench(bench_arguments("aws-bench", PROFILE=profile)))
