"""`make tune` on fake services: the choice of a knob's value (bankbench.run.experiments.sweep),
the knobs swept one after the other, each at the values chosen before it, the tables it prints for
profiles.toml, where it tunes each service (bankbench.analyse.tuned.bases), and the report's
capacities at the shipped and the tuned settings side by side."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from test_profiles import shipped_profiles

from bankbench.analyse import tuned
from bankbench.analyse.findings import Verdict
from bankbench.load import profiles
from bankbench.load.profiles import Level
from bankbench.publish import report, tables
from bankbench.results import runs
from bankbench.results.probes import LOADGEN, Basis, Target
from bankbench.run.experiments import sweep, tuning
from bankbench.run.experiments.sweep import Outcome


def never_over() -> bool:
    return False


def fixed(p99s: dict[str, list[float]], missed: dict[str, tuple[str, ...]] | None = None):
    """A fake service: each value's probes give these p99s in turn (or miss as `missed` says)."""
    left = {value: list(figures) for value, figures in p99s.items()}
    calls: list[str] = []

    def probe(value: str) -> Outcome:
        calls.append(value)
        if missed and value in missed:
            return Outcome(missed[value], 80.0)
        return Outcome((), left[value].pop(0))
    return probe, calls


def test_a_value_better_in_every_probe_wins() -> None:
    probe, calls = fixed({"95": [30, 32, 35], "8": [20, 22, 25], "16": [10, 12, 31]})
    choice = sweep.sweep(probe, ["95", "8", "16"], 3, never_over)
    # 16 has the lowest median, but one probe inside the shipped value's spread: only 8 beat it.
    assert (choice.chosen, choice.complete) == ("8", True) and calls == ["95"] * 3 + ["8"] * 3 + ["16"] * 3
    assert choice.why == "8's p99 (20, 22, 25 ms) under every one of the shipped 95's (30, 32, 35 ms)"


def test_ties_go_to_the_shipped_value() -> None:
    probe, _ = fixed({"G1": [30, 40, 50], "Serial": [25, 31, 33]})
    choice = sweep.sweep(probe, ["G1", "Serial"], 3, never_over)
    assert choice.chosen == "G1" and "no value had every p99 under every one of the shipped G1's" in choice.why


def test_where_the_shipped_value_missed_the_best_that_held_wins() -> None:
    probe, calls = fixed({"100": [], "200": [40, 45, 49], "400": [30, 35, 49]}, {"100": ("p99",)})
    choice = sweep.sweep(probe, ["100", "200", "400"], 3, never_over)
    assert choice.chosen == "400" and choice.why.startswith("the shipped 100 missed the target")
    assert calls.count("100") == 1  # a miss ends a value's probes: it cannot meet the target


def test_where_none_held_the_shipped_value_stays() -> None:
    probe, _ = fixed({"G1": [], "ZGC": []}, {"G1": ("errors",), "ZGC": ("start",)})
    assert sweep.sweep(probe, ["G1", "ZGC"], 3, never_over).chosen == "G1"


def test_a_probe_spoiled_by_the_load_generator_runs_again() -> None:
    outcomes = iter([Outcome((LOADGEN,)), Outcome((), 10.0), Outcome((LOADGEN,)), Outcome((), 11.0)])
    assert sweep.measure(lambda: next(outcomes), 2, never_over) == [Outcome((), 10.0), Outcome((), 11.0)]
    spoiled = sweep.measure(lambda: Outcome((LOADGEN,)), 2, never_over)  # short every time: a miss
    assert spoiled == [Outcome((LOADGEN,))]
    # Whatever else it missed: the p99 and errors of a starved generator are its own (java's G1 at
    # pool 8 once read 2,664 ms and 30 % errors while PostgreSQL took its core, between 4 ms and 3 ms).
    hiccup = iter([Outcome((), 4.0), Outcome((LOADGEN, "p99", "errors"), 2664.0), Outcome((), 3.0)])
    assert sweep.measure(lambda: next(hiccup), 2, never_over) == [Outcome((), 4.0), Outcome((), 3.0)]


def test_the_budget_keeps_the_shipped_value() -> None:
    probe, calls = fixed({"95": [30, 30, 30], "4": [1, 1, 1]})
    choice = sweep.sweep(probe, ["95", "4"], 3, lambda: len(calls) >= 4)
    assert (choice.chosen, choice.complete, calls) == ("95", False, ["95", "95", "95", "4"])
    assert choice.why == "the budget ran out at 4: the shipped value stays"


BASIS = Basis(400, Target(), "20261201T000000Z-native-capacity", 64, "20261201T000000Z-native-capacity")


def test_knobs_are_swept_in_order_each_at_the_values_chosen_before(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Go's pool, then its GOGC (services.yaml) at the pool chosen, all with GOMEMLIMIT at the heap
    found; the settings found, printed as the table profiles.toml takes."""
    profile = profiles.load("tune", {"services": ["go"], "repeat": 2})
    session = SimpleNamespace(opts=SimpleNamespace(profile=profile), run_dir=tmp_path)
    levels: list[Level] = []

    def run(self, level: Level, may_fail_to_start: bool = False, **about) -> dict:
        levels.append(level)
        p99 = {8: 20.0, 16: 30.0}.get(level.pool, 45.0) - (15 if level.settings["GOGC"] == "400" else 0)
        return {"missed": [], "p99_ms": p99}

    monkeypatch.setattr(tuning._Tuner, "run", run)
    doc: dict = {"services": {}}
    tuning._Tuner(session, "go", BASIS, Target(), float("inf"), doc).tune([4, 8, 16])
    assert [(lv.pool, lv.settings_tag) for lv in levels[::2]] == [
        (95, "GOGC100"), (4, "GOGC100"), (8, "GOGC100"), (16, "GOGC100"),
        (8, "GOGC100"), (8, "GOGC200"), (8, "GOGC400")]
    assert {(lv.users, lv.heap_mb) for lv in levels} == {(400, 64)}
    go = json.loads((tmp_path / runs.TUNING_FILE).read_text())["services"]["go"]
    assert [(k["knob"], k["chosen"]) for k in go["knobs"]] == [("pool", "8"), ("GOGC", "GOGC400")]
    assert go["tuned"] == {"pool": 8, "env": {"GOGC": "400", "GOMEMLIMIT": "64MiB"}}
    assert (go["rate"], go["run"]) == (400, BASIS.run)
    printed = tuning.tables(doc, "20261202T000000Z-native-tune")
    assert printed.startswith("[tuned.go]  # make tune, run 20261202T000000Z-native-tune, at 400 it/s of "
                              "20261201T000000Z-native-capacity\n")
    copy = tmp_path / "profiles.toml"
    copy.write_text(shipped_profiles() + "\n" + printed + "\n")
    level = profiles.levels(profiles.load("capacity", {"services": ["go"]}, path=copy, tuned=True))[0]
    assert (level.pool, level.service_env()) == (8, {"GOGC": "400", "GOMEMLIMIT": "64MiB"})


def capacity_run(root: Path, run_id: str, placement: str, services: dict[str, tuple[int | None, int | None]],
                 tuned_settings: dict | None = None) -> Path:
    """A make capacity run folder as bases() reads it: per service the rate and heap found."""
    path = root / run_id
    path.mkdir(parents=True)
    (path / "manifest.json").write_text(json.dumps({
        "run_id": run_id, "profile": "capacity", "env": "native",
        "settings": {"cpu_placement": {"mode": placement}, "profile": {"name": "capacity",
                                                                      "tuned": tuned_settings or {}}}}))
    (path / "capacity.json").write_text(json.dumps({"target": {"p99_ms": 50.0, "max_error_pct": 0.1}, "services": {
        service: {"probes": [], "rate": {"found": rate, "failed_at": None, "complete": True},
                  **({"heap": {"found": heap, "complete": True}} if heap else {})}
        for service, (rate, heap) in services.items()}}))
    return path


def test_each_service_is_tuned_at_its_newest_capacity_under_the_placement(tmp_path: Path) -> None:
    capacity_run(tmp_path, "20261201T000000Z-native-capacity", "service-alone", {"go": (800, 64), "java": (500, 256)})
    capacity_run(tmp_path, "20261202T000000Z-native-capacity", "split", {"go": (600, None), "java": (300, 128)})
    capacity_run(tmp_path, "20261203T000000Z-native-capacity", "service-alone",
                 {"go": (900, None), "java": (None, None)})
    capacity_run(tmp_path, "20261204T000000Z-native-capacity", "service-alone", {"go": (2000, 32)},
                 tuned_settings={"go": {"pool": 8, "env": {}}})  # at tuned settings: not a basis
    found = tuned.bases("service-alone", tmp_path)
    assert (found["go"].rate, found["go"].run) == (900, "20261203T000000Z-native-capacity")
    assert (found["go"].heap_mb, found["java"].heap_mb) == (64, 128)  # the newest heap found, any placement
    assert (found["java"].rate, found["java"].heap_run) == (500, "20261202T000000Z-native-capacity")
    assert set(tuned.bases("split", tmp_path)) == {"go", "java"} and tuned.bases("shared", tmp_path) == {}


SETTINGS = {"go": {"pool": 16, "env": {"GOGC": "200", "GOMEMLIMIT": "64MiB"}},
            "java": {"pool": 95, "env": {"JAVA_OPTS": "-XX:+UseG1GC"}}}  # make tune kept java's shipped values
# The summary columns a capacity's figures read: none of these fake runs has levels.
NO_LEVELS = pd.DataFrame(columns=["level_id", "overall.throughput_rps", "overall.p99_ms",
                                  "resources.service_rss_max_mb", "efficiency.service_cpu_ms_per_request",
                                  "efficiency.pg_cpu_ms_per_request"])


def as_run(path: Path) -> runs.Run:
    return runs.Run(path, json.loads((path / "manifest.json").read_text()), NO_LEVELS)


def test_the_report_sets_the_tuned_capacity_beside_the_shipped_one(tmp_path: Path) -> None:
    """Paired per placement, the newest of each, services searched in both; the verdict keeps
    reading the shipped settings, and the report's runs keep a tuned run beside the shipped one."""
    capacity_run(tmp_path, "20261201T000000Z-native-capacity", "service-alone", {"go": (700, None)})
    capacity_run(tmp_path, "20261202T000000Z-native-capacity", "service-alone", {"go": (800, 64), "java": (500, None)})
    capacity_run(tmp_path, "20261202T010000Z-native-capacity", "split", {"go": (600, None)})  # no tuned one
    capacity_run(tmp_path, "20261203T000000Z-native-capacity", "service-alone",
                 {"go": (1000, None), "java": (450, None)}, tuned_settings=SETTINGS)
    selected = [as_run(path) for path in runs.find_runs(tmp_path)]
    go, java = tuned.pairs(selected)
    assert not go.same and java.same
    assert (go.service, go.placement, go.shipped.rate, go.tuned.rate, go.settings) == (
        "go", "service-alone", 800, 1000, SETTINGS["go"])
    assert go.runs == ("20261202T000000Z-native-capacity", "20261203T000000Z-native-capacity")
    (section,) = report.tuned_sections(selected)
    row = next(line for line in section.splitlines() if line.startswith("| go"))
    assert [cell.strip() for cell in row.split("|")[1:6]] == [
        "go", "service-alone", "800 (the top rate tried)", "1,000 (the top rate tried)", "-"]
    assert row.split("|")[-2].strip() == "pool 16; GOGC=200, GOMEMLIMIT=64MiB"
    row = next(line for line in section.splitlines() if line.startswith("| java"))
    assert row.split("|")[-2].strip() == "pool 95; JAVA_OPTS=-XX:+UseG1GC (the shipped ones)"
    assert "their difference is the search's own spread" in section
    verdict = Verdict.of(selected[1:])
    assert verdict.searched.id == "20261202T000000Z-native-capacity"
    assert verdict.split.id == "20261202T010000Z-native-capacity"  # beside it, split's at the shipped settings
    assert [(c.service, c.rate) for c in verdict.split_found] == [("go", 600)]
    assert all(c.postgres_beside_loadgen for c in verdict.found)  # service-alone's bounds name PostgreSQL
    assert not any(c.postgres_beside_loadgen for c in verdict.split_found)
    assert runs.latest_per_profile(tmp_path)[-2:] == [tmp_path / "20261202T010000Z-native-capacity",
                                                       tmp_path / "20261203T000000Z-native-capacity"]
    assert report.tuned_sections(selected[:3]) == []  # no tuned run: no section


TUNING = {"budget_s": 7200, "pools": [4, 8], "services": {"go": {
    "rate": 600, "target": {"p99_ms": 50.0, "max_error_pct": 0.1}, "run": "20261201T000000Z-native-capacity",
    "heap_mb": 64, "heap_run": "20261201T000000Z-native-capacity", "probes": [],
    "knobs": [{"knob": "pool", "values": ["95", "4", "8"], "chosen": "8", "why": "8's p99 (2, 2, 3 ms) under ...",
               "complete": True, "measured": {
                   "95": [{"missed": [], "p99_ms": 4.0}] * 3,
                   "4": [{"missed": [], "p99_ms": 2.0}, {"missed": ["p99", "errors"], "p99_ms": 667.0}],
                   "8": [{"missed": [], "p99_ms": 2.0}] * 2 + [{"missed": [], "p99_ms": 3.0}]}},
              {"knob": "GOGC", "values": ["GOGC100", "GOGC200"], "chosen": "GOGC100",
               "why": "the budget ran out at GOGC200: the shipped value stays", "complete": False,
               "measured": {"GOGC100": [{"missed": [], "p99_ms": 3.0}] * 3, "GOGC200": []}}],
    "chosen": {"pool": "8", "GOGC": "GOGC100"}, "tuned": {"pool": 8, "env": {"GOGC": "100", "GOMEMLIMIT": "64MiB"}}}}}


def test_the_report_names_the_settings_make_tune_found_before_any_tuned_capacity(tmp_path: Path) -> None:
    """A make tune run's page and the report's section: the settings found, every value with the
    p99 of each probe, and no capacity at the tuned settings until a TUNED=1 run is shown."""
    capacity_run(tmp_path, "20261201T000000Z-native-capacity", "service-alone", {"go": (600, 64)})
    java = {"services": {"java": {**TUNING["services"]["go"], "rate": 500, "knobs": [],
                                  "tuned": {"pool": 16, "env": {}}}}}
    for run_id, doc in (("20261202T000000Z-native-tune", TUNING), ("20261203T000000Z-native-tune", java)):
        (tmp_path / run_id).mkdir()  # go tuned in one run, java in a later one
        (tmp_path / run_id / "manifest.json").write_text(json.dumps({"run_id": run_id, "profile": "tune"}))
        (tmp_path / run_id / runs.TUNING_FILE).write_text(json.dumps(doc))
    selected = [as_run(path) for path in runs.find_runs(tmp_path)]
    assert [run.swept for run in selected] == [False, True, True]
    (section,) = report.tuned_sections(selected)
    flat = " ".join(section.split())  # Markdown's tables pad their cells
    assert "| go | 600 it/s (capacity of 20261201T000000Z-native-capacity) | 64 MB (from 20261201T" in flat
    assert ("pool 8; GOGC=100, GOMEMLIMIT=64MiB (GOGC: budget ran out, shipped) | "
            "[`20261202T000000Z-native-tune`](runs/20261202T000000Z-native-tune.md) |") in flat
    assert "| pool 16 | [`20261203T000000Z-native-tune`](runs/20261203T000000Z-native-tune.md) |" in flat
    assert section.endswith("`make capacity TUNED=1` searches it.")
    values = tables.tuning_values(TUNING).set_index(["knob", "value"])
    assert values.loc[("pool", "4"), "p99 ms of each probe"] == "2, 667 (missed p99, errors)"
    assert list(values["held"]) == ["3 of 3", "1 of 2", "3 of 3", "3 of 3", "-"]
    assert values.loc[("pool", "8"), "kept"].startswith("8's p99") and values.loc[("pool", "95"), "kept"] == ""
    assert values.loc[("GOGC", "GOGC200"), "p99 ms of each probe"] == "not measured"
