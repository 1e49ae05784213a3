"""The searches of `make capacity` (bankbench.run.experiments.bisection) on fake services: the rate
staircase about a threshold they hold up to, a stall it probes again, a budget that runs out; the
heap bisection, and the heap probe that runs again when only the load generator fell short
(bankbench.run.experiments.capacity_search.held_heap); and a whole pass
(capacity_search.run) on a fake session: the contenders in turn, the A/A twin and the pools beside
the shipped one each in an entry and levels of their own, a long level that missed counting, the
budget stopping every search; what `make plan PROFILE=capacity` says of it."""

from __future__ import annotations

import argparse
import itertools
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from bankbench import cli
from bankbench.commands import capacity
from bankbench.errors import UserError
from bankbench.load import profiles
from bankbench.load.profiles import Level
from bankbench.registry import Settings
from bankbench.results import runs
from bankbench.results.documents import LevelSummary
from bankbench.results.probes import Searches, Target
from bankbench.run.experiments import bisection, capacity_search

LADDER = (25, 50, 100, 200, 400, 800, 1600)
DESIGN = bisection.Design(LADDER, probes=14, step=0.06)


def up_to(limit: int) -> Callable[[int], bool]:
    return lambda value: value <= limit


def never_over() -> bool:
    return False


def stairs(passes: Callable[[int], bool], design: bisection.Design = DESIGN,
           over: Callable[[], bool] = never_over) -> bisection.Found:
    return bisection.alone(bisection.staircase(design), passes, over)


def test_the_staircase_climbs_to_the_first_miss_then_steps_about_the_threshold() -> None:
    found = stairs(up_to(530))
    rates = [rate for rate, _ in found.probes]
    assert found.complete and len(rates) == DESIGN.probes
    assert rates[:6] == [25, 50, 100, 200, 400, 800]  # up the ladder to its first miss
    steps = [round(math.log(b / a) / math.log(1.06)) for a, b in itertools.pairwise(rates[5:])]
    assert steps == [-6, -6, 3, 3, -1, -1, 1, -1]  # half the ladder's step, halved at reversals to the fixed 6 %
    near = [rate for rate in rates if 530 / 1.06 ** 1.5 <= rate <= 530 * 1.06 ** 1.5]
    assert len(set(near)) == 3 and all(rates.count(rate) >= 2 for rate in near)  # each more than once
    assert (found.good, found.bad) == (502, 532) and found.confirmations() == rates.count(502)
    assert 502 <= found.estimate <= 532


def test_a_miss_below_a_held_rate_is_probed_again() -> None:
    """A service that stalls once at 400 and holds up to 530: no probe fixes a bound, the stall's
    rate is probed again (and holds), and the rate found is above it."""
    stalled = []

    def stalls_once(rate: int) -> bool:
        if rate == 400 and not stalled:
            stalled.append(rate)
            return False
        return rate <= 530

    found = stairs(stalls_once)
    assert (400, False) in found.probes and (400, True) in found.probes
    assert found.good is not None and found.good > 400 and found.good <= 530 < found.bad
    assert found.estimate == pytest.approx(530, rel=0.1)


def test_the_rate_found_is_held_in_every_probe_at_it() -> None:
    """`provisional`: the highest rate probed twice that always held; one miss there moves it down,
    a miss below it does not."""
    assert bisection.provisional([(100, True), (200, True), (200, True), (220, True), (240, False)]) == (200, 240)
    assert bisection.provisional([(100, True), (200, True), (200, False), (180, True), (180, True)]) == (180, 200)
    assert bisection.provisional([(100, False), (200, True), (200, True), (100, True)]) == (200, None)
    assert bisection.provisional([(100, True), (200, False)]) == (100, 200)  # none twice: one probe
    assert bisection.provisional([(100, False)]) == (None, 100)


def test_a_threshold_below_the_ladder_and_one_above_its_top() -> None:
    below = stairs(up_to(10))
    assert below.probes[0] == (25, False) and below.good == 10 < below.bad  # down from the first rung
    assert stairs(up_to(0)).good is None
    every = stairs(up_to(10_000))
    assert [rate for rate, _ in every.probes[:9]] == [*LADDER, 3200, 6400]  # on past the top at its ratio
    assert every.good is not None and every.good <= 10_000 < every.bad


def test_the_budget_stops_the_search_where_it_is() -> None:
    probes: list[int] = []

    def counted(rate: int) -> bool:
        probes.append(rate)
        return rate <= 530

    found = stairs(counted, over=lambda: len(probes) >= 4)
    assert not found.complete and probes == [25, 50, 100, 200] and found.good == 200 and found.estimate is None


def test_searches_side_by_side_probe_in_turn_and_find_what_each_alone_would() -> None:
    """make capacity's contenders: one probe of each in turn, so the machine's drift falls on
    all of them alike; one that ends early leaves the others going."""
    order: list[tuple[str, int]] = []
    limits = {"go": 530, "java": 310, "go-again": 530}
    designs = {"go": DESIGN, "java": replace(DESIGN, probes=5), "go-again": DESIGN}

    def passes(name: str, rate: int) -> bool:
        order.append((name, rate))
        return rate <= limits[name]

    found = bisection.in_turn({name: bisection.staircase(design) for name, design in designs.items()},
                              passes, never_over)
    names = [name for name, _ in order]
    assert names[:15] == ["go", "java", "go-again"] * 5 and names[15:] == ["go", "go-again"] * 9
    for name, limit in limits.items():
        alone = stairs(up_to(limit), designs[name])
        assert (found[name].good, found[name].probes, found[name].estimate) == (alone.good, alone.probes,
                                                                                alone.estimate)


def test_the_budget_ends_every_search_side_by_side() -> None:
    order: list[str] = []
    found = bisection.in_turn({name: bisection.staircase(DESIGN) for name in ("go", "java")},
                              lambda name, rate: order.append(name) or True, lambda: len(order) >= 5)
    assert order == ["go", "java", "go", "java", "go"]
    assert not found["go"].complete and not found["java"].complete
    assert (found["go"].good, found["java"].good) == (100, 50)


def test_contenders_are_the_shipped_the_pools_beside_the_twin_then_the_tuned() -> None:
    """TUNED=both: a service tuned to its shipped settings (java here) is one contender; the pools
    beside and the A/A twin are at the shipped settings."""
    tables = {"go": Settings(16), "java": Settings(95)}
    names = [c.name for c in capacity_search.contenders(["go", "java"], True, True, tables, "go",
                                                        {"java": (16, 95, 16), "helidon": (16,)})]
    assert names == ["go", "java", "java pool16", "go-again", "go tuned"]
    assert [c.name for c in capacity_search.contenders(["java"], True, False, tables, "go", {"java": (16,)})] \
        == ["java tuned"]  # TUNED=1: no pool beside, and no twin of a service not probed
    assert [c.name for c in capacity_search.contenders(["go"], True, False, tables, "go")] == [
        "go tuned", "go-again tuned"]
    assert [c.tuned for c in capacity_search.contenders(["go"], False, False, {})] == [False]


def test_the_profile_sets_the_design_the_control_and_the_pools_beside() -> None:
    profile = profiles.load("capacity", {"services": ["go", "java", "java-virtual"]})
    setup = capacity_search.Setup.of(profile)
    assert (setup.design.ladder, setup.control) == (tuple(profile.users), "go")
    assert 12 <= setup.design.probes <= 16 and 0.05 <= setup.design.step <= 0.08
    assert [c.name for c in setup.contenders(profile, False, False)] == [
        "go", "java", "java-virtual", "java pool16", "java-virtual pool16", "go-again"]
    assert [c.pool_in(profile) for c in setup.contenders(profile, False, False)] == [95, 95, 95, 16, 16, 95]
    assert capacity_search.Setup.of(profile, "", 9).control is None
    assert capacity_search.Setup.of(profile, "", 9).design.probes == 9
    assert capacity_search.Setup.of(profiles.load("capacity", {"services": ["java"]})).control is None  # the table's
    with pytest.raises(UserError, match="not among the services"):
        capacity_search.Setup.of(profiles.load("capacity", {"services": ["java"]}), "go")
    with pytest.raises(UserError, match="unknown keys"):
        capacity_search.Setup.of(replace(profile, search={"probs": 3}))


def test_a_service_probed_once_has_its_shipped_record_as_its_tuned_one() -> None:
    doc = {runs.SHIPPED_SECTION: {"go": {"service": "go", "rate": {"found": 500}, "probes": [{"rate": 500}]},
                                  "java": {"service": "java", "rate": {"found": 300}, "probes": []},
                                  "go-again": {"service": "go", "rate": {"found": 480}, "probes": []}},
           runs.TUNED_SECTION: {"go": {"service": "go", "rate": {"found": 550}, "probes": []}}}
    capacity_search.as_shipped(doc)
    assert doc[runs.TUNED_SECTION]["go"]["rate"]["found"] == 550
    assert doc[runs.TUNED_SECTION]["java"] == {"service": "java", "rate": {"found": 300}, "probes": [],
                                               "as_shipped": True}
    assert "go-again" not in doc[runs.TUNED_SECTION]  # the twin is the control's, not a service's
    doc[runs.SHIPPED_SECTION]["java"]["probes"].append({"heap_mb": 64})  # the heap sweep comes after
    assert doc[runs.TUNED_SECTION]["java"]["probes"] == []


def test_the_smallest_heap_bisects_the_sweep() -> None:
    heaps = (64, 128, 256, 512, 1024)
    found = bisection.smallest(up_to(10_000), heaps, 2, never_over)
    assert (found.good, found.bad) == (64, None)  # the smallest swept held
    found = bisection.smallest(lambda mb: mb >= 256, heaps, 2, never_over)
    assert (found.good, found.bad, found.complete) == (256, 128, True)
    assert found.probes[0] == (1024, True) and found.probes[-2:] == [(256, True)] * 2
    assert len(found.probes) <= 1 + 2 + 2  # 1024, then two halvings, then two confirmations
    found = bisection.smallest(lambda mb: False, heaps, 2, never_over)
    assert (found.good, found.bad, found.probes) == (None, None, [(1024, False)])


def test_a_heap_probe_spoiled_by_the_load_generator_runs_again() -> None:
    """At the capacity rate JMeter may fall short once: that level says nothing of the heap."""
    levels = iter([["load generator"], ["load generator"], []])
    assert capacity_search.held_heap(lambda: next(levels), 2, never_over)
    assert not capacity_search.held_heap(lambda: ["load generator"], 2, never_over)  # short every time: not held
    calls = []
    assert not capacity_search.held_heap(lambda: calls.append(1) or ["load generator", "p99"], 2, never_over)
    assert len(calls) == 1  # a miss of its own (p99) is the heap's: no retry
    calls.clear()
    assert not capacity_search.held_heap(lambda: calls.append(1) or ["load generator"], 2, lambda: True)
    assert len(calls) == 1  # no time left for another level


def test_the_heap_sweep_is_the_shipped_settings_only() -> None:
    """The tuned settings name their heap: no sweep by default, and asking for one is refused."""
    parser = argparse.ArgumentParser()
    capacity.add_arguments(parser)

    def heaps(*argv: str) -> tuple[int, ...]:
        return capacity.heaps_to_sweep(parser.parse_args(list(argv)))

    assert heaps() == capacity_search.HEAPS_MB
    assert heaps("--heaps", "64,128") == (64, 128)
    assert heaps("--heaps", "") == ()
    assert heaps("--tuned") == () == heaps("--tuned", "--heaps", "")
    with pytest.raises(UserError, match="--heaps with --tuned"):
        heaps("--tuned", "--heaps", "128")


# A whole pass on a fake session: each level "runs" at once, a clock advanced by its length.

LIMITS = {("go", 95): 600, ("java", 95): 450, ("java", 16): 520}  # the rate each holds up to


@dataclass
class FakeSession:
    """Session's part that capacity_search uses; `held(level)`: whether a level holds the target."""

    opts: SimpleNamespace
    run_dir: Path
    held: Callable[[Level], bool]
    now: list[float] = field(default_factory=lambda: [0.0])
    levels: list[Level] = field(default_factory=list)
    warm_processes: int = 0

    def __post_init__(self) -> None:
        self.final, self.where = self.run_dir, SimpleNamespace(calibrate=lambda levels, run_dir: {})

    def __enter__(self) -> FakeSession:
        return self

    def __exit__(self, *_: object) -> None:
        return None

    def run_level(self, level: Level, tag: str, remaining_s: float, calibrated: dict | None = None) -> Path:
        out = self.run_dir / "levels" / level.id
        out.mkdir(parents=True)  # a level id is never run twice
        self.levels.append(level)
        self.now[0] += level.expected_s + capacity_search.LEVEL_OVERHEAD_S
        return out

    def summary(self, out: Path) -> LevelSummary:
        level = next(level for level in self.levels if level.id == out.name)
        return LevelSummary.of({
            "level": {"service": level.service, "started_ms": 0, "measure_from_ms": 0, "ended_ms": 0,
                      "generator": "gatling", "arrivals": None},
            "money_ok": True,
            "overall": {"requests": 1000, "errors": 0, "error_pct": 0.0, "throughput_rps": 100.0,
                        "p99_ms": 8.0 if self.held(level) else 120.0},
            "loadgen": {"valid": True, "reasons": "", "offered_pct": 100.0},
            "efficiency": {"service_cpu_ms_per_request": 0.1, "pg_cpu_ms_per_request": 0.1}})


def a_pass(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, held: Callable[[Level], bool], budget_min: float = 600,
           heaps: tuple[int, ...] = (), **search: object) -> tuple[FakeSession, dict, list[capacity_search.Contender]]:
    profile = profiles.load("capacity", {"services": ["go", "java"], "users": [100, 200, 400, 800]})
    profile = replace(profile, search={**profile.search, "probes": 10, **search})
    setup = capacity_search.Setup.of(profile)
    session = FakeSession(SimpleNamespace(profile=profile, with_tuned=False), tmp_path, held)

    def opened(opts: object, warm_processes: int) -> FakeSession:
        session.warm_processes = warm_processes
        return session

    monkeypatch.setattr(capacity_search, "Session", opened)
    monkeypatch.setattr(capacity_search.levels, "judged", session.summary)
    monkeypatch.setattr(capacity_search.time, "monotonic", lambda: session.now[0])
    entrants = setup.contenders(profile, False, False)
    capacity_search.run(session.opts, entrants, setup, Target(), budget_min * 60, heaps, long_s=60)
    return session, json.loads((tmp_path / runs.CAPACITY_FILE).read_text()), entrants


def by_limit(level: Level) -> bool:
    return level.users <= LIMITS[level.service, level.pool]


def test_a_pass_probes_every_contender_in_turn_each_in_its_own_entry(monkeypatch, tmp_path: Path) -> None:
    session, doc, _ = a_pass(monkeypatch, tmp_path, by_limit)
    names = ["go", "java", "java pool16", "go-again"]
    assert doc["in_turn"] == names and session.warm_processes == 4
    assert doc["design"] == {"ladder": [100, 200, 400, 800], "probes": 10, "step_pct": 6, "control": "go",
                             "pools_beside": {"java": [16], "java-virtual": [16]}}
    section = doc[runs.SHIPPED_SECTION]
    assert list(section) == names and [section[n]["contender"] for n in names] == names
    assert [(section[n]["service"], section[n]["pool"]) for n in names] == [("go", 95), ("java", 95), ("java", 16),
                                                                            ("go", 95)]
    # One probe of each in turn, then each one's long level in turn.
    turns = [next(n for n in names if level.id in {p["level"] for p in section[n]["probes"]})
             for level in session.levels]
    assert turns == names * 11
    assert [p["long"] for n in names for p in section[n]["probes"] if "long" in p] == [True] * 4
    for name in names:
        record = section[name]
        assert len(record["probes"]) == 11 and record["rate"]["complete"]
        rate = record["rate"]["found"]
        assert [p["held"] for p in record["probes"] if p["rate"] == rate] == [True] * record["rate"]["confirmations"]
        assert record["long"]["rate"] == rate and record["long"] == record["probes"][-1]
    assert section["java pool16"]["rate"]["found"] > section["java"]["rate"]["found"]
    # The twin: the same settings and results as go's, its own entry, level ids and warm process.
    twin = section["go-again"]
    assert twin["twin_of"] == "go" and "twin_of" not in section["go"]
    assert [(p["rate"], p["held"]) for p in twin["probes"]] == [(p["rate"], p["held"]) for p in section["go"]["probes"]]
    assert all("-again-r" in p["level"] for p in twin["probes"])
    assert not {p["level"] for p in twin["probes"]} & {p["level"] for p in section["go"]["probes"]}
    go, again = (next(level for level in session.levels if level.service == "go" and ("again" in level.id) == twin)
                 for twin in (False, True))
    assert go.process != again.process and go.service_env() == again.service_env() and again.settings == {}
    assert all("-p16-" in p["level"] for p in section["java pool16"]["probes"])
    # As the report reads it: the services by service, the others beside them by name.
    read = Searches.read(tmp_path)
    assert (list(read.shipped), list(read.beside), read.contenders) == (["go", "java"], ["java pool16", "go-again"],
                                                                         tuple(names))
    assert [search.contender for search in read.control] == ["go", "go-again"]
    assert read.shipped["go"].found == section["go"]["rate"]["found"] and read.shipped["go"].long.long
    assert list(read.every()) == names and read.beside["java pool16"].pool == 16


def test_a_long_level_that_missed_counts_like_any_probe(monkeypatch, tmp_path: Path) -> None:
    """go holds every short probe up to 600 but not a minute at the rate found: that rate then has
    a miss, and the rate found moves below it."""
    def short_only(level: Level) -> bool:
        return by_limit(level) and not (level.service == "go" and level.profile.duration_s == 60)

    _, doc, _ = a_pass(monkeypatch, tmp_path, short_only, control="")
    go = doc[runs.SHIPPED_SECTION]["go"]
    long = go["long"]
    assert (long["long"], long["held"]) == (True, False) and go["probes"][-1] == long
    assert go["rate"]["found"] < long["rate"] and go["rate"]["failed_at"] == long["rate"]
    assert "go-again" not in doc[runs.SHIPPED_SECTION] and doc["design"]["control"] is None


def test_the_budget_stops_every_search_of_a_pass(monkeypatch, tmp_path: Path) -> None:
    session, doc, _ = a_pass(monkeypatch, tmp_path, by_limit, budget_min=20)
    section = doc[runs.SHIPPED_SECTION]
    counts = [len(record["probes"]) for record in section.values()]
    assert all(not record["rate"]["complete"] for record in section.values())
    assert 3 <= min(counts) <= max(counts) <= min(counts) + 1  # in turn to the end
    assert session.now[0] <= 20 * 60 + capacity_search.LEVEL_OVERHEAD_S + 50  # no probe started past it


def test_the_heap_is_swept_for_the_services_only(monkeypatch, tmp_path: Path) -> None:
    _, doc, _ = a_pass(monkeypatch, tmp_path, by_limit, heaps=(64, 1024))
    section = doc[runs.SHIPPED_SECTION]
    assert {name for name, record in section.items() if "heap" in record} == {"go", "java"}
    assert section["go"]["heap"]["rate"] == section["go"]["rate"]["found"]


def test_plan_shows_the_pass_and_its_time(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["plan", "--profile", "capacity", "--service", "go,java"]) == 0
    out = capsys.readouterr().out
    assert "contenders in turn" in out and "go, java, java pool16, go-again" in out
    assert re.search(r"load time up to \d+ min", out) and "staircase of 6% steps" in out
