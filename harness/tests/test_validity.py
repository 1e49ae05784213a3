"""The load generator's verdict (bankbench.load.validity): arrivals offered against the plan,
for the whole level and phase by phase, CPU, calibration; and, with a real JMeter, that a level
whose plan JMeter cannot drive is marked invalid by the real analysis code."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import fake_records
import numpy as np
import pandas as pd
import pytest

from bankbench.analyse import levels
from bankbench.load import profiles, validity
from bankbench.machine import placement
from bankbench.results import files, histograms
from bankbench.results.documents import Calibration, LevelRecord
from bankbench.results.files import read_metrics
from bankbench.run.experiments import calibration

ARTICLE = (100.0, 10)  # rate and window: 1,000 users over a 10 s ramp-up


def arrivals(starts_s: list[float] | np.ndarray) -> tuple[int, float, float]:
    """What the histograms hold of iterations starting at `starts_s`: their count and the
    earliest and latest start (epoch ms)."""
    starts_ms = (1000 * np.asarray(starts_s)).astype(int)
    return len(starts_ms), float(starts_ms.min()), float(starts_ms.max())


def test_an_even_ramp_on_time_offers_the_plan() -> None:
    offered = validity.offered(*arrivals(np.arange(1000) * 0.01 + 0.3), *ARTICLE)  # 0.3 s late, all of them
    assert offered == {"planned_rate": 100.0, "offered_rate": 100.0, "offered_pct": 100.0, "min_offered_pct": 99.0,
                       "iterations": 1000, "planned_iterations": 1000}
    assert not validity.short_of_plan(offered)


def test_falling_behind_or_starting_fewer_is_short_of_the_plan() -> None:
    late = validity.offered(*arrivals(np.arange(1000) * 0.0105), *ARTICLE)  # the ramp took 10.5 s
    assert late["offered_pct"] == pytest.approx(100 / 1.05, abs=0.05) and validity.short_of_plan(late)
    fewer = validity.offered(*arrivals(np.arange(980) * 0.01), *ARTICLE)  # 20 users never started
    assert fewer["offered_pct"] == 98.0 and validity.short_of_plan(fewer)


def test_random_arrivals_get_the_same_bar() -> None:
    """JMeter places exactly rate x window random arrivals, so the open model gets no allowance."""
    open_model = (50, 70)  # 3,500 planned
    random_starts = np.sort(np.random.default_rng(1).uniform(0, 70, 3500))
    assert not validity.short_of_plan(validity.offered(*arrivals(random_starts), *open_model))
    short = validity.offered(*arrivals(np.linspace(0, 69.9, 3420)), *open_model)
    assert short["min_offered_pct"] == 99 and validity.short_of_plan(short)  # 97.7 % of the plan


def test_short_of_cpu_with_own_cpus_or_shared() -> None:
    assert validity.saturated(160, 2, None, None) and not validity.saturated(150, 2, None, None)
    assert validity.saturated(90, None, 85, 80) and not validity.saturated(70, None, 85, 80)
    assert not validity.saturated(90, None, 70, 10)  # the machine had room


def test_short_of_cpu_with_postgresql_beside_it_says_both(level_json: Callable[..., dict]) -> None:
    """Service-alone: Gatling at 36 % and PostgreSQL at 45 % of their one CPU: the CPU was full,
    and the reason says so, not "36 %" alone."""
    level = LevelRecord.of(level_json(generator="gatling", loadgen_cpus=1, loadgen_peers=["pg"]))
    resources = {"loadgen_cpu_mean": 36.0, "pg_cpu_mean": 45.0, "machine_cpu_mean": 67.0,
                 "loadgen_saturated": True}
    assert validity.judge(level, resources, None, None)["reasons"] == (
        "Gatling short of CPU (36 % of its 1 CPU, 81 % with PostgreSQL beside it)")
    split = LevelRecord.of(level_json(loadgen_cpus=1))  # its own CPU
    assert validity.level_cpu_text(split, resources) == "36 % of its 1 CPU"
    assert validity.busy({"loadgen_cpu_pct": 36.0, "pg_cpu_pct": None}, ["pg"], "{}_cpu_pct") is None


def calibrated(**figures: object) -> dict:
    return {"throughput_rps": 1000.0, "loadgen_cpu_mean": 50.0, "loadgen_cpus": 1, "machine_cpu_mean": 40.0,
            "loadgen_saturated": False, "offered_pct": 100.0, "drives_plan": True, "errors": 0, **figures}


def test_a_plan_beyond_the_calibration_is_invalid(level_json: Callable[..., dict]) -> None:
    beyond = calibrated(offered_pct=80.0, drives_plan=False, loadgen_cpu_mean=97.0)
    verdict = validity.judge(LevelRecord.of(level_json(calibration=beyond)), None, None, 500.0)
    assert verdict == {"valid": False, "calibrated_rps": 1000.0, "reasons": (
        "the plan is beyond what JMeter drove against the calibration target (offered 80.0 % of it there, "
        "97 % of its 1 CPU)")}
    assert validity.judge(LevelRecord.of(level_json(calibration=calibrated())), None, None, 500.0)["valid"]


def test_a_closed_loop_near_its_calibrated_ceiling_is_invalid(level_json: Callable[..., dict]) -> None:
    ceiling = calibrated(offered_pct=None, drives_plan=None, loadgen_saturated=True)
    assert validity.judge(LevelRecord.of(level_json(calibration=ceiling)), None, None, 890.0)["valid"]
    assert validity.judge(LevelRecord.of(level_json(calibration=ceiling)), None, None, 900.0)["reasons"] == (
        "900 req/s is 90 % of the 1000 req/s JMeter drove against the calibration target")
    think_bound = calibrated(offered_pct=None, drives_plan=None, loadgen_saturated=False)
    think_bound_level = LevelRecord.of(level_json(calibration=think_bound))
    assert validity.judge(think_bound_level, None, None, 990.0)["valid"]  # think time bound


def test_every_reason_is_given(level_json: Callable[..., dict]) -> None:
    short = validity.offered(*arrivals(np.arange(900) * 0.01), *ARTICLE)
    resources = {"loadgen_saturated": True, "loadgen_cpu_mean": 95.0, "machine_cpu_mean": 60.0}
    verdict = validity.judge(LevelRecord.of(level_json(loadgen_cpus=1)), resources, short, 630.0)
    assert verdict["reasons"] == ("JMeter short of CPU (95 % of its 1 CPU); offered 90.0 % of the planned 100 "
                                  "iterations/s")
    assert (verdict["valid"], verdict["offered_pct"], verdict["calibrated_rps"]) == (False, 90.0, None)


# A phased level (profile overload's shape, small): 10 s at 0.5x, 10 s at 2x, 10 s at 0.5x of
# 100 iterations/s, no warm-up: 500, 2,000 and 500 iterations planned, 3,000 at 100/s on average.
BASE, PHASES, MEASURE_FROM_MS = 100, [(10, 0.5), (10, 2.0), (10, 0.5)], 1_795_000_000_000


def phased_level(tmp_path: Path, phase_2_started: int, phased: bool = True) -> Path:
    """A level folder whose generator started each phase's iterations evenly over its seconds,
    but only `phase_2_started` of the 2x phase's 2,000 there: the rest in a burst at the start
    of phase 3 (a stalled injection catching up). One 10 ms request per iteration. Without
    `phased`, the same iterations under a plan of one rate (the level's mean)."""
    out = tmp_path / "go-u100-p95-r1"
    out.mkdir()
    planned = [int(seconds * multiple * BASE) for seconds, multiple in PHASES]
    starts_ms = [*np.arange(planned[0]) * 10_000 / planned[0],
                 *(10_000 + np.arange(phase_2_started) * 10_000 / phase_2_started),
                 *(20_000 + np.arange(planned[1] - phase_2_started)),
                 *(20_000 + np.arange(planned[2]) * 10_000 / planned[2])]
    samples = pd.DataFrame({"timeStamp": MEASURE_FROM_MS + np.round(starts_ms).astype(int), "elapsed": 10,
                            "label": "balance", "responseCode": "200",
                            "threadName": [f"arrivals-{i}" for i in range(len(starts_ms))], "success": True})
    histograms.write(histograms.from_samples(samples.astype(histograms.SAMPLE_DTYPES), MEASURE_FROM_MS),
                     out / histograms.FILE)
    level = {"service": "go", "users": BASE, "model": "open", "generator": "gatling", "started_ms": MEASURE_FROM_MS,
             "measure_from_ms": MEASURE_FROM_MS, "ended_ms": MEASURE_FROM_MS + 30_000,
             "arrivals": {"rate": BASE, "window_s": 30}}
    if phased:
        level["phases"] = [{"seconds": seconds, "multiple": multiple, "rate": multiple * BASE}
                           for seconds, multiple in PHASES]
    (out / "level.json").write_text(json.dumps(level))
    files.write_money(out, fake_records.BALANCED)
    return out


def verdict(level_dir: Path) -> dict:
    """The verdict the level's progress line, summary.json and summary.csv carry."""
    return levels.level_summary(level_dir, intervals=False, resources=False)["loadgen"]


def test_a_phase_short_of_its_rate_is_invalid_though_the_level_is_not(tmp_path: Path) -> None:
    """Issue 35: the whole level's average hides the 2x phase Gatling offered 86 % of."""
    judged = verdict(phased_level(tmp_path, phase_2_started=1720))
    assert judged["offered_pct"] >= validity.OFFERED_MIN_PCT  # 3,000 iterations in 30 s
    assert not judged["valid"]
    assert judged["reasons"] == "offered 86.0 % of the planned 200 iterations/s in phase 2 (10 s at 2x)"


def test_every_phase_on_time_is_valid(tmp_path: Path) -> None:
    assert verdict(phased_level(tmp_path, phase_2_started=2000)) == {
        "valid": True, "reasons": "", "planned_rate": 100, "offered_rate": 100.0, "offered_pct": 100.0,
        "min_offered_pct": 99, "iterations": 3000, "planned_iterations": 3000, "calibrated_rps": None}


def test_a_level_without_phases_is_judged_on_the_whole_load_alone(tmp_path: Path) -> None:
    level_dir = phased_level(tmp_path, phase_2_started=1720, phased=False)
    requests = histograms.read(level_dir / histograms.FILE)
    level = files.level_record(level_dir)
    assert levels.offered_by_phase(requests, level) == []
    assert verdict(level_dir) == validity.judge(level, None, levels.offered(requests, level), None)
    assert verdict(level_dir)["valid"]  # the same starts, judged on their mean rate
    assert levels.offered(requests, replace(level, arrivals=None)) is None  # the sustained model plans none


def test_each_short_phase_is_named_after_a_short_level(level_json: Callable[..., dict]) -> None:
    short = validity.offered(*arrivals(np.arange(900) * 0.01), *ARTICLE)
    phase = {"seconds": 60, "multiple": 0.5, **short}
    level = LevelRecord.of(level_json())
    assert validity.judge(level, None, short, None, [phase, {**phase, "multiple": 2.0}])["reasons"] == (
        "offered 90.0 % of the planned 100 iterations/s; "
        "offered 90.0 % of the planned 100 iterations/s in phase 1 (60 s at 0.5x); "
        "offered 90.0 % of the planned 100 iterations/s in phase 2 (60 s at 2x)")


@pytest.mark.integration
def test_a_level_jmeter_cannot_drive_is_invalid(tmp_path: Path) -> None:
    """3,000 users in one second, seven requests each, against the calibration target: JMeter on
    its CPU cannot start them that fast. The level's own analysis marks it invalid, saying it
    offered less than the plan; the calibration of the same plan says it is beyond JMeter."""
    profile = profiles.Profile(name="impossible", description="", model="article", services=["go"], users=[3000],
                               pools=[95], repeat=1, scenario="rematch", hot_accounts=10, think_ms=0, rampup_s=1,
                               warmup_s=0, duration_s=60, placements=[])
    level = profiles.levels(profile)[0]
    where = placement.plan(placement.default_mode())
    affinity = os.sched_getaffinity(0)
    where.pin_harness()
    try:
        document = calibration.drive(level, where, tmp_path)
    finally:
        os.sched_setaffinity(0, affinity)
    files.write_level_record(tmp_path, document)
    files.write_money(tmp_path, fake_records.BALANCED)  # no database behind the target
    requests = histograms.convert(tmp_path / "jmeter.csv", document.measure_from_ms, tmp_path / histograms.FILE)
    summary = levels.summarize_level(tmp_path)
    assert summary["overall"]["errors"] == 0, summary["overall"]  # the target answered as the plan expects
    verdict = summary["loadgen"]
    assert not verdict["valid"] and verdict["offered_pct"] < validity.OFFERED_MIN_PCT, verdict
    assert f"offered {verdict['offered_pct']:.1f} % of the planned 3000 iterations/s" in verdict["reasons"]
    figures = levels.generator_figures(document, requests, read_metrics(tmp_path))
    assert figures["drives_plan"] is False
    assert "BEYOND the generator" in calibration.describe(Calibration.of({**figures, "errors": 0}))
