"""`make tune` on fake services: a value's duel with the incumbent (bankbench.run.experiments
.sweep), the knobs tuned one after the other, each value against the one kept so far, where it
tunes each service (bankbench.analyse.tuned.bases), and the report's capacities at the shipped and
the tuned settings side by side."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import fake_records
import pandas as pd
import pytest

from bankbench.analyse import service_metrics, tuned
from bankbench.analyse.findings import Verdict
from bankbench.commands import tune
from bankbench.errors import UserError
from bankbench.load import profiles
from bankbench.load.profiles import Level
from bankbench.publish import report, tables
from bankbench.registry import Settings
from bankbench.results import capacities, files, runs
from bankbench.results.documents import Manifest
from bankbench.results.probes import LOADGEN, Basis, Searched, Target, Tuned, Tuning
from bankbench.run.experiments import sweep, tuning
from bankbench.run.experiments.sweep import Outcome


def never_over() -> bool:
    return False


def scored(cpu: dict[str, list[float]], missed: dict[str, tuple[str, ...]] | None = None):
    """A fake service: each value's probes score these CPU ms per request in turn (or miss as
    `missed` says), p99 3 ms."""
    left = {value: list(figures) for value, figures in cpu.items()}
    calls: list[str] = []

    def probe(value: str) -> Outcome:
        calls.append(value)
        if missed and value in missed:
            return Outcome(missed[value], 80.0, 0.1)
        return Outcome((), 3.0, left[value].pop(0))
    return probe, calls


def test_the_two_values_are_probed_in_turn() -> None:
    probe, calls = scored({"95": [0.30, 0.32, 0.31, 0.30, 0.33, 0.31], "8": [0.25, 0.26, 0.24, 0.25, 0.27, 0.26]})
    duel = sweep.duel(probe, "95", "8", 6, never_over)
    assert calls == ["95", "8"] * 6 and (duel.won, duel.complete) == (True, True)
    assert duel.why == ("8's CPU per request -18.5% [-22.6%, -13.3%] against 95's (a cut of 7.4% detectable): "
                        "a cut")
    assert (duel.effect, duel.low, duel.high, duel.detectable) == (
        pytest.approx(-0.185, abs=1e-3), pytest.approx(-0.226, abs=1e-3), pytest.approx(-0.133, abs=1e-3),
        pytest.approx(0.074, abs=1e-3))


def test_a_gain_whose_interval_reaches_zero_keeps_the_incumbent() -> None:
    """The candidate's median is lower, but the 95 % interval of its effect holds 0: not a cut."""
    probe, _ = scored({"G1h1024": [0.30, 0.36, 0.31, 0.33, 0.29, 0.35],
                       "Serialh256": [0.28, 0.29, 0.30, 0.34, 0.31, 0.33]})
    duel = sweep.duel(probe, "G1h1024", "Serialh256", 6, never_over)
    assert not duel.won and duel.low < 0 < duel.high and duel.why.endswith(": not a cut")


def test_three_probes_a_side_cannot_win_on_cpu() -> None:
    """The old rule's 3 probes a side: no Mann-Whitney interval at 95 % can exclude 0 there."""
    probe, _ = scored({"95": [0.30, 0.32, 0.31], "8": [0.20, 0.21, 0.19]})
    duel = sweep.duel(probe, "95", "8", 3, never_over)
    assert not duel.won and duel.high is None and duel.detectable is None
    assert duel.why.endswith("(no cut detectable): not a cut")


def test_a_candidate_that_misses_in_most_probes_loses_as_soon_as_it_must() -> None:
    probe, calls = scored({"95": [0.3] * 4, "4": []}, {"4": ("p99", "errors")})
    duel = sweep.duel(probe, "95", "4", 6, never_over)
    assert (duel.won, calls, duel.why) == (False, ["95", "4"] * 4,
                                           "4 missed the target in most of its probes (errors, p99)")


def test_one_p99_past_the_target_decides_nothing() -> None:
    """Below saturation a single slow probe is the machine's hiccup, on either side."""
    cpu = {"95": [0.30, 0.31, 0.30, 0.32, 0.30, 0.31], "32": [0.29, 0.31, 0.29, 0.30, 0.31, 0.30]}
    outcomes = {value: iter(Outcome(("p99",) if i == 1 else (), 56.0 if i == 1 else 9.0, score)
                            for i, score in enumerate(scores)) for value, scores in cpu.items()}
    duel = sweep.duel(lambda value: next(outcomes[value]), "95", "32", 6, never_over)
    assert not duel.won and duel.why.endswith(": not a cut")  # judged by the CPU, as without the misses


def test_a_candidate_that_holds_where_the_incumbent_missed_mostly_wins() -> None:
    probe, _ = scored({"95": [], "16": [0.5] * 6}, {"95": ("p99",)})
    duel = sweep.duel(probe, "95", "16", 6, never_over)
    assert duel.won and duel.why == "95 missed the target in most of its probes (p99) where 16 held it"


def test_a_probe_spoiled_by_the_load_generator_runs_again() -> None:
    outcomes = iter([Outcome((), 3.0, 0.30), Outcome((LOADGEN, "p99"), 2664.0, 0.9), Outcome((), 3.0, 0.20),
                     *(Outcome((), 3.0, score) for _ in range(3) for score in (0.30, 0.20))])
    duel = sweep.duel(lambda value: next(outcomes), "A", "B", 4, never_over)
    assert [(value, o.cpu_ms) for value, o in duel.probes] == [("A", 0.3), ("B", 0.2)] * 4
    assert [(value, o.cpu_ms) for value, o in duel.voided] == [("B", 0.9)]
    assert duel.won  # no spread at all: any cut counts


def test_a_probe_taken_while_the_jit_compiled_is_void_and_taken_again() -> None:
    """Issue 69: such probes read 47-80 % high. Taken again up to `repeats` times in a duel; one
    still compiling after that counts, its flag kept."""
    outcomes = iter([Outcome((), 3.0, 0.60, compiling=True), Outcome((), 3.0, 0.30), Outcome((), 3.0, 0.20),
                     *(Outcome((), 3.0, score) for _ in range(3) for score in (0.30, 0.20))])
    duel = sweep.duel(lambda value: next(outcomes), "A", "B", 4, never_over)
    assert [o.cpu_ms for _, o in duel.probes] == [0.3, 0.2] * 4 and [v for v, _ in duel.voided] == ["A"]
    always = sweep.duel(lambda value: Outcome((), 3.0, 0.3, compiling=True), "A", "B", 4, never_over)
    assert len(always.voided) == 4 and len(always.probes) == 8 and all(o.compiling for _, o in always.probes)


def test_the_budget_keeps_the_incumbent() -> None:
    probe, calls = scored({"95": [0.3, 0.3], "4": [0.1]})
    duel = sweep.duel(probe, "95", "4", 3, lambda: len(calls) >= 3)
    assert (duel.won, duel.complete, calls, duel.why) == (False, False, ["95", "4", "95"],
                                                          "the budget ran out: 95 stays")


BASIS = Basis(500, Target(), "20261201T000000Z-native-capacity")


def fake_tuner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cpu, repeat: int = 1):
    """Go's tuner on a fake service whose probes score `cpu(level)`, `repeat` probes a value in a
    duel (1: none can win on CPU); the levels it ran."""
    profile = profiles.load("tune", {"services": ["go"], "repeat": repeat})
    session = SimpleNamespace(opts=SimpleNamespace(profile=profile), run_dir=tmp_path)
    levels: list[Level] = []

    def run(self, level: Level, may_fail_to_start: bool = False, **about) -> dict:
        levels.append(level)
        return {"missed": [], "p99_ms": 3.0, "service_cpu_ms": cpu(level), "pg_cpu_ms": 0.1}

    monkeypatch.setattr(tuning._Tuner, "run", run)
    return tuning._Tuner(session, "go", BASIS, float("inf"), fake_records.tuning({})), levels


def test_knobs_are_tuned_in_order_each_value_against_the_one_kept(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Go's pool, then its GOGC (services.yaml) at the pool kept, at 80 % of its capacity, 4 probes
    a value; a value that wins is duelled again and kept only then; the settings found, as
    tuned.toml takes them."""
    def cpu(level: Level) -> float:
        return {8: 0.2, 16: 0.25}.get(level.pool, 0.4) - (0.05 if level.settings.get("GOGC") == "400" else 0)

    tuner, levels = fake_tuner(tmp_path, monkeypatch, cpu, repeat=4)
    tuner.tune([4, 8, 16])
    go = json.loads((tmp_path / runs.TUNING_FILE).read_text())["services"]["go"]
    pool, gogc = go["knobs"]
    assert [(d["incumbent"], d["candidate"], d["won"], d["kept"], d["confirms"]) for d in pool["duels"]] == [
        ("95", "4", False, False, False), ("95", "8", True, True, False), ("95", "8", True, True, True),
        ("8", "16", False, False, False)]
    assert [(d["incumbent"], d["candidate"], d["kept"]) for d in gogc["duels"]] == [
        ("GOGC100", "GOGC200", False), ("GOGC100", "GOGC400", True), ("GOGC100", "GOGC400", True),
        *(("GOGC400", f"GOGC{gogc}L", False) for gogc in (100, 200, 400))]
    assert [(lv.pool, lv.settings_tag) for lv in levels[:8]] == [(95, "GOGC100"), (4, "GOGC100")] * 4
    assert len(levels) == 8 * (len(pool["duels"]) + len(gogc["duels"]))
    assert [(k["knob"], k["chosen"], k["complete"]) for k in go["knobs"]] == [("pool", "8", True),
                                                                              ("GOGC", "GOGC400", True)]
    assert {lv.users for lv in levels} == {400} and {lv.heap_mb for lv in levels} == {None}
    assert go["tuned"] == {"pool": 8, "env": {"GOGC": "400"}} and go["not_searched"] == []
    assert (go["rate"], go["capacity"], go["run"]) == (400, 500, BASIS.run)
    assert pool["duels"][1]["effect"] == pytest.approx(-0.4) and pool["duels"][1]["voided"] == []


def test_a_value_that_loses_its_second_duel_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pool 8 wins its first duel by chance, then loses the second: the shipped pool stays."""
    scores = iter([0.4, 0.2] * 4 + [0.4, 0.4] * 4)

    tuner, levels = fake_tuner(tmp_path, monkeypatch, lambda level: next(scores) - 0.1, repeat=4)
    tuner.tune([8], ["pool"])
    (pool,) = json.loads((tmp_path / runs.TUNING_FILE).read_text())["services"]["go"]["knobs"]
    assert [(d["won"], d["kept"], d["confirms"], d["complete"]) for d in pool["duels"]] == [
        (True, False, False, True), (False, False, True, True)]
    assert pool["chosen"] == "95" and pool["complete"] and len(levels) == 16
    assert Tuning.read(tmp_path).services["go"].knobs[0].judged == ("95", "8")


def test_a_probe_whose_jit_compiled_through_its_window_is_flagged(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The warm-up's rule (measure.steady.JIT_QUIET): compiling for over 2 % of the measured
    window's wall time. The JIT's share is the `jit_ms` counter's gain over the window's scrapes."""
    frame = pd.DataFrame({"t_ms": [0, 1000, 2000, 3000, 4000], "up": 1.0, "jit_ms": [0.0, 100, 300, 800, 40]})
    assert service_metrics.busy_share(frame, "jit_ms", 1000, 3000) == pytest.approx(0.35)  # 700 ms in 2 s
    assert service_metrics.busy_share(frame, "jit_ms", 1000, 4000) == pytest.approx(740 / 3000)  # a restart: 40 more
    assert service_metrics.busy_share(frame.drop(columns="jit_ms"), "jit_ms", 0, 4000) is None  # no JIT
    tuner, _ = fake_tuner(tmp_path, monkeypatch, lambda level: 0.3)
    shares = iter([0.05, 0.01, None])
    monkeypatch.setattr(tuning.levels, "jit_share", lambda level_dir: next(shares))
    probe = {"level": "go-u400-p95-r1", "p99_ms": 3.0, "missed": []}
    assert [tuner._compiling(probe) for _ in range(3)] == [True, False, False]
    assert not tuner._compiling({"level": "go-u400-p95-r1", "missed": ["start"]})  # not run: nothing to read


def test_a_knob_the_budget_did_not_reach_is_named_not_searched(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    tuner, levels = fake_tuner(tmp_path, monkeypatch, lambda level: 0.3)
    monkeypatch.setattr(tuning._Tuner, "over", lambda self: len(levels) >= 3)
    tuner.tune([4, 8])
    go = json.loads((tmp_path / runs.TUNING_FILE).read_text())["services"]["go"]
    assert go["not_searched"] == ["pool", "GOGC"] and go["tuned"] == {"pool": 95, "env": {}}
    page = tables.tuning_duels(Tuning.read(tmp_path))
    assert list(page["candidate"]) == ["4", "8", "the rest", "the rest"]
    assert page.iloc[1]["kept"] == "no: the budget ran out: 95 stays"


def test_the_duel_table_gives_each_duels_effect_its_interval_and_power() -> None:
    """Issue 69: each duel's effect on CPU per request with its 95 % interval, the smallest cut
    it could have detected at 80 % power, its void probes and whether it was the second duel."""
    duel = {"incumbent": "95", "candidate": "8", "probes": [], "kept": True, "complete": True, "why": "a cut",
            "won": True, "effect": -0.081, "low": None, "high": -0.039, "detectable": 0.128, "confirms": True,
            "voided": [{"value": "8", "cpu_ms": 0.5, "missed": []}]}
    knob = {"knob": "pool", "values": ["95", "8"], "chosen": "8", "complete": True, "duels": [duel]}
    doc = Tuning(7200, 0.8, {"go": Tuned.of({"knobs": [knob], "not_searched": []})})
    read = doc.services["go"].knobs[0].duels[0]
    assert (read.won, read.effect, read.low, read.confirms, len(read.voided)) == (True, -0.081, None, True, 1)
    row = tables.tuning_duels(doc).iloc[0]
    assert (row["effect [95 % interval]"], row["cut detectable at 80 %"], row["void"], row["duel"]) == (
        "-8.1 % [-100 %, -3.9 %]", "12.8 %", 1, "second")


def test_knobs_left_out_keep_their_shipped_values_and_are_named_not_searched(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """make tune KNOBS=GOGC: GOGC's duels at the shipped pool, and the pool named as not searched."""
    tuner, levels = fake_tuner(tmp_path, monkeypatch, lambda level: 0.3 - (level.settings.get("GOGC") == "200") * 0.1,
                               repeat=4)
    tuner.tune([4, 8], ["GOGC"])
    assert {lv.pool for lv in levels} == {95} and len(levels) == 8 * 6  # GOGC200's duel twice
    go = json.loads((tmp_path / runs.TUNING_FILE).read_text())["services"]["go"]
    assert [(k["knob"], k["chosen"], k["complete"]) for k in go["knobs"]] == [("GOGC", "GOGC200", True)]
    assert go["not_searched"] == ["pool"] and go["tuned"] == {"pool": 95, "env": {"GOGC": "200"}}


def test_knobs_left_out_start_where_an_earlier_run_left_them(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """make tune KNOBS=GOGC after a run that kept pool 8: GOGC's duels at pool 8, and the pool
    named as taken from that run, not as shipped or not searched."""
    tuner, levels = fake_tuner(tmp_path, monkeypatch, lambda level: 0.3)
    tuner.tune([4, 8], ["GOGC"], {"pool": Searched("8", "run-a", True, ("95", "4", "8"), {"GOGC": "GOGC100"}),
                                  "GOGC": Searched("GOGC400", "run-b", True, (), {"pool": "95"})})
    assert {lv.pool for lv in levels} == {8} and levels[0].settings_tag == "GOGC100"  # GOGC is searched afresh
    go = json.loads((tmp_path / runs.TUNING_FILE).read_text())["services"]["go"]
    assert go["carried"] == {"pool": {"value": "8", "run": "run-a"}} and go["not_searched"] == []
    assert go["tuned"] == {"pool": 8, "env": {}}
    assert tune.found_by("run-c", "split", Tuning.read(tmp_path).services["go"]).endswith("; pool from run-a")


def test_a_knob_the_budget_cut_short_goes_on_from_where_it_stopped(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """GOGC's search stopped after GOGC200 and GOGC400 were judged, GOGC400 kept, at the pool
    this run starts from: the next run duels only the values left, against GOGC400."""
    tuner, levels = fake_tuner(tmp_path, monkeypatch, lambda level: 0.3)
    tuner.tune([4], ["GOGC"], {"GOGC": Searched("GOGC400", "run-a", False, ("GOGC100", "GOGC200", "GOGC400"),
                                                {"pool": "95"})})
    assert [lv.settings_tag for lv in levels[::2]] == ["GOGC400"] * 3  # the incumbent of every duel
    assert [lv.settings_tag for lv in levels[1::2]] == ["GOGC100L", "GOGC200L", "GOGC400L"]
    go = json.loads((tmp_path / runs.TUNING_FILE).read_text())["services"]["go"]
    assert go["knobs"][0]["resumed"] == {"run": "run-a", "judged": ["GOGC100", "GOGC200", "GOGC400"]}
    assert go["knobs"][0]["complete"] and go["not_searched"] == ["pool"]
    assert "; GOGC went on from run-a" in tune.found_by("run-b", "split", Tuning.read(tmp_path).services["go"])


def test_an_unfinished_search_at_other_values_starts_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tuner, levels = fake_tuner(tmp_path, monkeypatch, lambda level: 0.3)
    tuner.tune([4], ["GOGC"], {"GOGC": Searched("GOGC400", "run-a", False, ("GOGC100", "GOGC400"), {"pool": "16"})})
    assert len(levels) == 2 * 5 and "resumed" not in json.loads(
        (tmp_path / runs.TUNING_FILE).read_text())["services"]["go"]["knobs"][0]
    levels.clear()  # a search the budget stopped before any duel ended: nothing to go on from
    tuner.tune([4], ["GOGC"], {"GOGC": Searched("GOGC100", "run-a", False, (), {"pool": "95"})})
    assert len(levels) == 2 * 5 and "resumed" not in json.loads(
        (tmp_path / runs.TUNING_FILE).read_text())["services"]["go"]["knobs"][0]


def tune_run(root: Path, run_id: str, placement: str, knobs: dict[str, tuple[str, bool]]) -> None:
    """A make tune run folder of go: per knob the value kept and whether it was searched through,
    each after one duel of the shipped value and the one kept."""
    (root / run_id).mkdir(parents=True)
    (root / run_id / "manifest.json").write_text(json.dumps(fake_records.manifest(run_id, "tune", placement)))
    shipped = {"pool": "95", "GOGC": "GOGC100"}
    entries = [{"knob": k, "values": [shipped[k], v], "chosen": v, "complete": done,
                "duels": [{**fake_records.DUEL, "incumbent": shipped[k], "candidate": v, "probes": [], "kept": True,
                           "complete": True, "why": ""}]}
               for k, (v, done) in knobs.items()]
    (root / run_id / runs.TUNING_FILE).write_text(json.dumps(fake_records.tuning({"go": {
        "probes": [], "knobs": entries, "not_searched": [], "chosen": {k: v for k, (v, _) in knobs.items()},
        "tuned": None}})))


def test_a_run_of_some_knobs_starts_from_the_newest_search_of_each_knob(tmp_path: Path) -> None:
    tune_run(tmp_path, "20261201T000000Z-native-tune", "split", {"pool": ("32", True), "GOGC": ("GOGC200", True)})
    tune_run(tmp_path, "20261202T000000Z-native-tune", "split", {"GOGC": ("GOGC400L", True)})
    tune_run(tmp_path, "20261203T000000Z-native-tune", "split", {"pool": ("8", False)})  # the budget ran out
    tune_run(tmp_path, "20261204T000000Z-native-tune", "service-alone", {"pool": ("4", True)})
    found = tuned.searched("go", "split", tmp_path)
    assert found["GOGC"] == Searched("GOGC400L", "20261202T000000Z-native-tune", True, ("GOGC100", "GOGC400L"), {})
    assert found["pool"] == Searched("8", "20261203T000000Z-native-tune", False, ("95", "8"), {})
    assert tuned.searched("java", "split", tmp_path) == {}


def test_a_run_of_some_knobs_leaves_out_the_services_without_them() -> None:
    """KNOBS=threads tunes java alone: go's table in tuned.toml is not rewritten to its shipped values."""
    assert tune.with_knobs(["go", "java", "java-virtual"], ("threads",)) == ["java"]
    assert tune.with_knobs(["go", "java"], ("pool", "GOGC")) == ["go", "java"]
    assert tune.with_knobs(["go", "java"], None) == ["go", "java"]
    with pytest.raises(UserError, match="no knob carriers"):
        tune.with_knobs(["go", "java"], ("carriers",))


def test_tuned_settings_are_written_to_their_own_file(tmp_path: Path) -> None:
    """make tune writes tuned.toml, over the tables of the services it tuned, which TUNED=1 reads."""
    path = tmp_path / "tuned.toml"
    java = Settings(16, {}, "make tune, run a")
    go = Settings(8, {"GOGC": "400", "GOMEMLIMIT": "256MiB"}, 'make tune, run "b"')
    profiles.write_tuned({"java": java}, path)
    profiles.write_tuned({"go": go}, path)
    assert profiles.read_tuned(path) == {"java": java, "go": go}
    level = profiles.levels(profiles.load("capacity", {"services": ["go"]}, tuned=True, tuned_path=path))[0]
    assert (level.pool, level.service_env()) == (8, {"GOGC": "400", "GOMEMLIMIT": "256MiB"})
    assert level.profile.tuned["go"].found_by == 'make tune, run "b"'  # the manifest names the tune run


def capacity_run(root: Path, run_id: str, placement: str, services: dict[str, tuple[int | None, int | None]],
                 tuned_settings: dict | None = None) -> Path:
    """A make capacity run folder as bases() reads it: per service the rate and heap found."""
    path = root / run_id
    path.mkdir(parents=True)
    (path / "manifest.json").write_text(json.dumps(fake_records.manifest(
        run_id, "capacity", placement, profile={"name": "capacity", "tuned": tuned_settings or {}})))
    (path / "capacity.json").write_text(json.dumps(fake_records.capacity({
        service: {"probes": [], "rate": {"found": rate, "failed_at": None, "complete": True},
                  **({"heap": {"found": heap, "complete": True, "rate": rate}} if heap else {})}
        for service, (rate, heap) in services.items()})))
    return path


def capacity_file(path: Path, run_id: str, placement: str, shipped: dict[str, float],
                  tuned_rates: dict[str, float] | None = None) -> Path:
    """capacity.toml at `path` with one more pass, as make capacity appends it."""
    capacities.append(capacities.Pass(run_id, placement, Target(), shipped, tuned_rates or {}), path)
    return path


def test_each_service_is_tuned_at_its_capacity_over_the_passes_under_the_placement(tmp_path: Path) -> None:
    """capacity.toml's passes: per service the geometric mean of those under the placement that
    give it, at the shipped settings (a pass's tuned capacities are no basis)."""
    path = tmp_path / "capacity.toml"
    capacity_file(path, "20261201T000000Z-native-capacity", "service-alone", {"go": 800, "java": 500})
    capacity_file(path, "20261202T000000Z-native-capacity", "split", {"go": 600, "java": 300})
    capacity_file(path, "20261203T000000Z-native-capacity", "service-alone", {"go": 900}, {"go": 2000})
    found = tuned.bases("service-alone", capacities.read(path))
    assert (found["go"].rate, found["go"].run) == (849, "2 passes, runs 20261201T000000Z-native-capacity to "
                                                        "20261203T000000Z-native-capacity")
    assert found["java"].rate == 500 and found["go"].target == Target()
    assert set(tuned.bases("split", capacities.read(path))) == {"go", "java"}
    assert tuned.bases("shared", capacities.read(path)) == {}


SETTINGS = {"go": {"pool": 16, "env": {"GOGC": "200", "GOMEMLIMIT": "64MiB"}},
            "java": {"pool": 95, "env": {}}}  # make tune kept java's shipped values
# The summary columns a capacity's figures read: none of these fake runs has levels.
NO_LEVELS = pd.DataFrame(columns=["level_id", "overall.throughput_rps", "overall.p99_ms",
                                  "resources.service_rss_max_mb", "efficiency.service_cpu_ms_per_request",
                                  "efficiency.pg_cpu_ms_per_request"])


def as_run(path: Path) -> runs.Run:
    return runs.Run(path, files.manifest(path), NO_LEVELS)


def test_the_verdict_reads_the_shipped_settings_beside_a_tuned_run(tmp_path: Path) -> None:
    """A TUNED=1 capacity run leaves the verdict at the shipped settings, and the report's runs keep
    it beside the shipped one."""
    capacity_run(tmp_path, "20261201T000000Z-native-capacity", "service-alone", {"go": (700, None)})
    capacity_run(tmp_path, "20261202T000000Z-native-capacity", "service-alone", {"go": (800, 64), "java": (500, None)})
    capacity_run(tmp_path, "20261202T010000Z-native-capacity", "split", {"go": (600, None)})  # no tuned one
    capacity_run(tmp_path, "20261203T000000Z-native-capacity", "service-alone",
                 {"go": (1000, None), "java": (450, None)}, tuned_settings=SETTINGS)
    selected = [as_run(path) for path in runs.find_runs(tmp_path)]
    verdict = Verdict.of(selected[1:])
    assert verdict.searched.id == "20261202T000000Z-native-capacity"
    assert verdict.split.id == "20261202T010000Z-native-capacity"  # beside it, split's at the shipped settings
    assert [(c.service, c.rate) for c in verdict.split_found] == [("go", 600)]
    assert all(c.postgres_beside_loadgen for c in verdict.found)  # service-alone's bounds name PostgreSQL
    assert not any(c.postgres_beside_loadgen for c in verdict.split_found)
    assert runs.latest_per_profile(tmp_path)[-2:] == [tmp_path / "20261202T010000Z-native-capacity",
                                                       tmp_path / "20261203T000000Z-native-capacity"]


TUNING = fake_records.tuning({"go": {
    "rate": 600, "target": {"p99_ms": 50.0, "max_error_pct": 0.1}, "run": "20261201T000000Z-native-capacity",
    "heap_mb": 64, "heap_run": "20261201T000000Z-native-capacity", "probes": [],
    "knobs": [{"knob": "pool", "values": ["95", "4", "8"], "chosen": "8", "why": "8's CPU ...", "complete": True},
              {"knob": "GOGC", "values": ["GOGC100", "GOGC200"], "chosen": "GOGC100",
               "why": "the budget ran out at GOGC200: the shipped value stays", "complete": False}],
    "not_searched": ["GOGC"], "chosen": {"pool": "8", "GOGC": "GOGC100"},
    "tuned": {"pool": 8, "env": {"GOGC": "100", "GOMEMLIMIT": "64MiB"}}}}, budget_s=7200, pools=[4, 8])


def test_the_report_names_the_settings_make_tune_found_before_any_tuned_capacity(tmp_path: Path) -> None:
    """The report's section: the settings each make tune run found, and no capacity at the tuned
    settings until TUNED=both's passes are shown."""
    capacity_run(tmp_path, "20261201T000000Z-native-capacity", "service-alone", {"go": (600, 64)})
    java = fake_records.tuning({"java": {**TUNING["services"]["go"], "rate": 500, "knobs": [], "not_searched": [],
                                         "tuned": {"pool": 16, "env": {}}}})
    for run_id, doc in (("20261202T000000Z-native-tune", TUNING), ("20261203T000000Z-native-tune", java)):
        (tmp_path / run_id).mkdir()  # go tuned in one run, java in a later one
        (tmp_path / run_id / "manifest.json").write_text(json.dumps(fake_records.manifest(run_id, "tune")))
        (tmp_path / run_id / runs.TUNING_FILE).write_text(json.dumps(doc))
    selected = [as_run(path) for path in runs.find_runs(tmp_path)]
    assert [run.swept for run in selected] == [False, True, True]
    (section,) = report.tuned_sections(selected)
    flat = " ".join(section.split())  # Markdown's tables pad their cells
    assert "| go | 600 it/s (capacity of 20261201T000000Z-native-capacity) | 64 MB (from 20261201T" in flat
    assert ("pool 8; GOGC=100, GOMEMLIMIT=64MiB (GOGC: not searched, shipped) | "
            "[`20261202T000000Z-native-tune`](runs/20261202T000000Z-native-tune.md) |") in flat
    assert "| pool 16 | [`20261203T000000Z-native-tune`](runs/20261203T000000Z-native-tune.md) |" in flat
    assert section.endswith("`make capacity TUNED=both` probes them beside the shipped ones.")


def test_the_report_shows_each_run_of_some_knobs(tmp_path: Path) -> None:
    """Runs of some knobs each (KNOBS=): go's pool in one, its GOGC in the next, each a row with
    its run and the knobs it left as not searched."""
    capacity_run(tmp_path, "20261201T000000Z-native-capacity", "split", {"go": (600, None)})
    go = {**TUNING["services"]["go"], "knobs": []}
    docs = {"20261203T000000Z-native-tune": fake_records.tuning({"go": {
                **go, "not_searched": ["GOGC"], "tuned": {"pool": 16, "env": {}}}}),
            "20261204T000000Z-native-tune": fake_records.tuning({"go": {
                **go, "not_searched": ["pool"], "tuned": {"pool": 95, "env": {"GOGC": "200"}}}})}
    for run_id, doc in docs.items():
        (tmp_path / run_id).mkdir()
        (tmp_path / run_id / "manifest.json").write_text(json.dumps(fake_records.manifest(run_id, "tune")))
        (tmp_path / run_id / runs.TUNING_FILE).write_text(json.dumps(doc))
    selected = [as_run(path) for path in runs.find_runs(tmp_path)]
    assert [(run.id, service) for run, service, _ in tuned.found(selected)] == [
        ("20261203T000000Z-native-tune", "go"), ("20261204T000000Z-native-tune", "go")]
    flat = " ".join(report.tuned_sections(selected)[0].split())
    assert "pool 16 (GOGC: not searched, shipped) | [`20261203T000000Z-native-tune`]" in flat
    assert "pool 95; GOGC=200 (pool: not searched, shipped) | [`20261204T000000Z-native-tune`]" in flat


def test_the_settings_table_tells_a_knob_cut_short_from_one_not_reached() -> None:
    """java's run of 2026-11-29: the pool searched through, threads from the run before, the
    collector cut short after some values, compact headers not reached."""
    duel = {**fake_records.DUEL, "incumbent": "G1h1024", "candidate": "G1h512", "complete": True, "kept": True,
            "why": "", "probes": []}
    record = {**TUNING["services"]["go"], "tuned": {"pool": 95, "env": {}}, "not_searched": ["gc", "coh"],
              "carried": {"threads": {"value": "T200", "run": "run-a"}},
              "knobs": [{"knob": "pool", "values": ["95", "4"], "chosen": "95", "complete": True, "duels": []},
                        {"knob": "gc", "values": ["G1h1024", "G1h512", "G1h256"], "chosen": "G1h512",
                         "complete": False, "duels": [duel, {**duel, "candidate": "G1h256", "complete": False}]},
                        {"knob": "coh", "values": ["COHoff", "COHon"], "chosen": "COHoff", "complete": False,
                         "duels": []}]}
    found = tables.tuning_settings([("java", Tuned.of(record))]).loc[0, "settings found"]
    assert found == ("pool 95 (threads from run-a) (gc: 2 of 3 values judged when the budget ran out, the one "
                     "kept so far stays) (coh: not searched, shipped)")


def test_each_knob_value_shows_its_first_duels_effect_and_power_and_its_second() -> None:
    """The report's tuned section: a row per value duelled, its second duel beside its first."""
    def duel(candidate: str, effect: float, confirms: bool = False, kept: bool = False) -> dict:
        return {"incumbent": "95", "candidate": candidate, "probes": [], "kept": kept, "complete": True, "why": "",
                "won": effect < -0.05, "effect": effect, "low": effect - 0.04, "high": effect + 0.04,
                "detectable": 0.11, "confirms": confirms, "voided": []}
    knob = {"knob": "pool", "values": ["95", "8", "16"], "chosen": "8", "complete": True,
            "duels": [duel("8", -0.1, kept=True), duel("8", -0.08, confirms=True, kept=True), duel("16", 0.01)]}
    run = runs.Run(Path("20261202T000000Z-native-tune"), Manifest(), NO_LEVELS)
    table = tables.knob_effects([(run, "go", Tuned.of({"knobs": [knob], "not_searched": []}))])
    shown = table[["value", "effect [95 % interval]", "cut detectable at 80 %", "second duel", "kept"]]
    assert shown.values.tolist() == [
        ["8", "-10.0 % [-14.0 %, -6.0 %]", "11.0 %", "-8.0 % [-12.0 %, -4.0 %]", "yes"],
        ["16", "+1.0 % [-3.0 %, +5.0 %]", "11.0 %", "-", "no"]]
