"""make capacity's passes (bankbench.analyse.paired) on fake runs: each pass's capacity from the
model over its probes, over the passes a geometric mean with capacity_model.ACROSS's interval, each
ratio taken within a run, "within noise" where a ratio's interval holds 1, and the first table's
capacity cells from them."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import capacity_probes
import fake_records
import pandas as pd
import pytest

from bankbench.analyse import capacity_model, estimates, findings, paired
from bankbench.publish import formatting, report, tables
from bankbench.results import documents, runs
from bankbench.results.documents import Manifest

SERVICES = ("go", "java", "java-virtual")



def a_pass(root: Path, run_id: str, shipped: dict[str, int | None], tuned: dict[str, int] | None = None,
           placement: str = "split", in_turn: bool = True, tuned_only: bool = False,
           top: frozenset[str] = frozenset(), control: str | None = None) -> runs.Run:
    """A make capacity run folder: per contender the rate its search found, 50 above it missed
    but for the shipped contenders in `top`, whose rate was the highest tried; `control`: that
    service entered again as the A/A twin `<service>-again`, found alike."""
    path = root / run_id
    path.mkdir(parents=True)
    tables = {service: {"pool": 16, "env": {}} for service in shipped} if tuned is not None or tuned_only else {}
    manifest = fake_records.manifest(run_id, "capacity", placement, profile={"name": "capacity", "tuned": tables},
                                     **({documents.WITH_TUNED: True} if tuned is not None else {}))
    (path / "manifest.json").write_text(json.dumps(manifest))

    def section(rates: dict[str, int | None], top: frozenset[str]) -> dict:
        failed = {service: None if service in top or rate is None else rate + capacity_probes.MISS_ABOVE
                  for service, rate in rates.items()}
        return {service: {"probes": capacity_probes.around(rate, failed[service]), "rate": {
            "found": rate, "failed_at": failed[service], "complete": True}} for service, rate in rates.items()}

    twin = f"{control}-again" if control else None
    doc = fake_records.capacity(section(shipped, top), section(tuned, frozenset()) if tuned is not None else None,
                                [*shipped, *filter(None, [twin])] if in_turn else None, 60 if in_turn else 0)
    if control:  # the A/A twin: the service again, under its own name
        doc[runs.SHIPPED_SECTION][twin] = {**fake_records.contender(control, section({control: shipped[control]}, top)[
            control]), "contender": twin, "twin_of": control}
    (path / "capacity.json").write_text(json.dumps(doc))
    return runs.Run(path, Manifest.of(manifest), pd.DataFrame())


def between(value: float, found: int) -> bool:
    """A pass's capacity from the fake probes: above the rate found, below the one missed."""
    return found < value < found + capacity_probes.MISS_ABOVE


def test_a_ratio_over_passes_is_taken_within_each_run() -> None:
    go, java = estimates.over_passes([600, 700, 650]), estimates.over_passes([400, 500, 400])
    assert go.value == pytest.approx((600 * 700 * 650) ** (1 / 3)) and go.source == estimates.PASSES
    assert go.low < 600 and go.high > 700  # a t interval of the mean over 3 passes: wider than their range
    r = estimates.ratio(java, go)  # go's over java's, run by run: 1.5, 1.4, 1.625
    assert r.value == pytest.approx((1.5 * 1.4 * 1.625) ** (1 / 3)) and r.low < 1.4 and r.high > 1.625
    assert r.significant  # the t interval on the log ratios: 1.24-1.78
    # A ratio of medians would say 650 / 400 = 1.63; the drift of each run cancels within it instead.
    drifting = estimates.ratio(estimates.over_passes([550, 560]), estimates.over_passes([600, 500]))
    assert drifting.low < 1 < drifting.high and not drifting.significant  # within noise




def test_the_passes_under_split_make_the_capacities(tmp_path: Path) -> None:
    selected = [
        a_pass(tmp_path, "20261201T000000Z-native-capacity", {"go": 600, "java": 400}, in_turn=False),  # before
        a_pass(tmp_path, "20261202T000000Z-native-capacity", {"go": 600, "java": 400}, {"go": 650, "java": 450}),
        a_pass(tmp_path, "20261203T000000Z-native-capacity", {"go": 700, "java": 500}, {"go": 700, "java": 500},
               top=frozenset({"go"})),
        a_pass(tmp_path, "20261204T000000Z-native-capacity", {"go": 650, "java": None}, {"go": 650, "java": 425}),
        a_pass(tmp_path, "20261205T000000Z-native-capacity", {"go": 900}, placement="service-alone"),
        a_pass(tmp_path, "20261206T000000Z-native-capacity", {"go": 800}, tuned_only=True),  # TUNED=1
    ]
    assert not selected[1].tuned and selected[1].manifest.with_tuned  # TUNED=both: shipped first
    passes = paired.of(selected)
    assert [run.id[:9] for run in passes.runs] == ["20261202T", "20261203T", "20261204T"]
    go_rates = passes.shipped["go"].figure.values
    assert between(go_rates[0], 600) and go_rates[1] == 700 and between(go_rates[2], 650)  # 700: never missed
    assert "java" not in passes.shipped  # none held in one pass
    java = passes.tuned["java"]
    assert all(between(rate, found) for rate, found in zip(java.figure.values, (450, 500, 425), strict=True))
    assert java.figure.low < min(java.figure.values) and java.bound == ""
    shipped, _, tuned = findings._split(None, SERVICES, passes)
    assert shipped["go"].figure is passes.shipped["go"].figure and (shipped["go"].n, shipped["go"].of) == (3, 3)
    # go held the top rate tried in one pass: over the passes its capacity is only a lower bound
    assert (shipped["go"].bound, tuned["go"].bound) == (findings.TOP_RATE, "")
    assert shipped["java"].missing == "no rate in every pass" and tuned["java-virtual"].missing == "not probed tuned"
    assert paired.of(selected[:1]) is None and paired.of(selected, "shared") is None
    assert paired.of(selected[:2]) is None  # one pass: no range over the runs yet


def test_passes_that_probed_the_tuned_settings_replace_those_that_did_not(tmp_path: Path) -> None:
    """Once two TUNED=both passes exist, the first table's figures and ratios all come from them."""
    older = [a_pass(tmp_path, f"2026120{day}T000000Z-native-capacity", {"go": 600, "java": 400}) for day in (1, 2)]
    both = a_pass(tmp_path, "20261203T000000Z-native-capacity", {"go": 500, "java": 300}, {"go": 550, "java": 300})
    assert [run.id[:9] for run in paired.of([*older, both]).runs] == ["20261201T", "20261202T", "20261203T"]
    assert paired.of([*older, both]).tuned == {}  # not probed tuned in every pass
    newer = a_pass(tmp_path, "20261204T000000Z-native-capacity", {"go": 520, "java": 320}, {"go": 560, "java": 320})
    passes = paired.of([*older, both, newer])
    assert [run.id[:9] for run in passes.runs] == ["20261203T", "20261204T"]
    assert all(between(rate, found) for rate, found in zip(passes.shipped["go"].figure.values, (500, 520), strict=True))
    assert all(between(rate, found) for rate, found in zip(passes.tuned["go"].figure.values, (550, 560), strict=True))


def with_long(run: runs.Run, costs: dict[str, tuple[float, float]], missed: frozenset[str] = frozenset(),
              section: str = runs.SHIPPED_SECTION) -> runs.Run:
    """`run` with a long level per service of `costs` in `section`: its service's and PostgreSQL's CPU
    ms per request; it held the target but for the services in `missed`."""
    doc = json.loads((run.path / "capacity.json").read_text())
    for service, (own, database) in costs.items():
        doc[section][service]["long"] = {"service_cpu_ms": own, "pg_cpu_ms": database, "held": service not in missed}
    (run.path / "capacity.json").write_text(json.dumps(doc))
    return run


def test_the_report_shows_each_long_level_and_whether_it_held(tmp_path: Path) -> None:
    """A rate found whose long level missed the target is marked in its pass; a tuned record that
    is a copy of the shipped one (`as_shipped`) is not counted twice."""
    costs = {"go": (0.1, 0.1), "java": (0.2, 0.1)}
    first = with_long(a_pass(tmp_path, "20261202T000000Z-native-capacity", {"go": 600, "java": 400}), costs)
    second = with_long(a_pass(tmp_path, "20261203T000000Z-native-capacity", {"go": 700, "java": 500},
                              {"go": 750, "java": 500}), costs, frozenset({"java"}))
    with_long(second, {"go": (0.1, 0.1)}, frozenset({"go"}), runs.TUNED_SECTION)
    doc = json.loads((second.path / "capacity.json").read_text())
    doc[runs.TUNED_SECTION]["java"][runs.AS_SHIPPED] = True
    (second.path / "capacity.json").write_text(json.dumps(doc))
    passes = paired.of([first, second])
    assert passes.long_s == (60,) and len(passes.long_held) == 5
    held = tables.long_levels(passes).set_index("contender")
    assert list(held.columns) == ["pass 1: 20261202T000000Z", "pass 2: 20261203T000000Z"]
    assert held.to_dict("index") == {
        "go": {"pass 1: 20261202T000000Z": "held", "pass 2: 20261203T000000Z": "held"},
        "go tuned": {"pass 1: 20261202T000000Z": "-", "pass 2: 20261203T000000Z": "missed"},
        "java": {"pass 1: 20261202T000000Z": "held", "pass 2: 20261203T000000Z": "missed"}}


def test_the_cpu_over_passes_is_the_shared_core_at_each_long_level(tmp_path: Path) -> None:
    """Over the passes, the CPU per request is the service's plus PostgreSQL's at the level that
    confirmed each run's rate; a service some run has no such level for has none."""
    selected = [with_long(a_pass(tmp_path, "20261202T000000Z-native-capacity", {"go": 600, "java": 400}),
                          {"go": (0.1, 0.1), "java": (0.2, 0.1)}),
                with_long(a_pass(tmp_path, "20261203T000000Z-native-capacity", {"go": 700, "java": 500}),
                          {"go": (0.15, 0.15)})]
    passes = paired.of(selected)
    assert passes.shipped["go"].cpu_ms.values == (0.2, 0.3) and passes.shipped["java"].cpu_ms is None
    cells = findings._shared_core(passes, ("go", "java"))
    assert (cells["go"].figure.value, cells["go"].n) == (pytest.approx(0.06 ** 0.5), 2)  # geometric mean
    assert cells["java"].missing == "not in every pass"


def test_the_report_sets_the_tuned_capacity_beside_the_shipped_one_over_the_passes(tmp_path: Path) -> None:
    """TUNED=both passes: each service's shipped and tuned capacity over the runs, the ratio within
    each pass; the verdict ranks the tuned capacities beside the shipped ones, which were within noise."""
    selected = [a_pass(tmp_path, f"2026120{day}T000000Z-native-capacity", shipped, tuned) for day, shipped, tuned in (
        (2, {"go": 300, "java": 400}, {"go": 600, "java": 400}),
        (3, {"go": 600, "java": 400}, {"go": 650, "java": 400}),
        (4, {"go": 500, "java": 375}, {"go": 500, "java": 375}))]
    passes = paired.of(selected)
    shipped, _, tuned = findings._split(None, SERVICES[:2], passes)
    no_start = {start: {} for start in ("warm", "cold", "aot")}
    f = findings.Findings(SERVICES[:2], None, None, no_start, {}, {}, {}, {}, verdict=SimpleNamespace(
        searched=selected[-1]), split_capacity=shipped, passes=passes, tuned_capacity=tuned)
    (section,) = report.tuned_sections(selected, passes, report.ranking(f, "tuned"))
    rows = {line.split("|")[1].strip(): [cell.strip() for cell in line.split("|")[2:-1]]
            for line in section.splitlines() if line.startswith("| go") or line.startswith("| java")}
    go, go_tuned, java = passes.shipped["go"].figure, passes.tuned["go"].figure, passes.shipped["java"].figure
    assert rows["go"][:2] == [formatting.figure_text(go, formatting.count),
                              formatting.figure_text(go_tuned, formatting.count)]
    assert rows["java"][:3] == [formatting.figure_text(java, formatting.count)] * 2 + ["1×"]
    assert rows["go"][3] == "pool 16" and rows["java"][3] == "pool 16"
    assert all(f"(runs/{run.id}.md)" in section for run in selected)  # each pass
    assert "| capacity it/s at the settings make tune found | go " in section  # go's tuned capacity leads
    within = estimates.ratio(java, go)
    told = tables.rankings(f, "capacity").to_dict("records")[0]  # each ratio still told
    assert (told["leads"].split()[0], told["other"].split()[0], told["differs"]) == ("go", "java", "within noise")
    assert told["factor [95 % interval]"] == (f"{formatting.number(within.value)} [{formatting.number(within.low)}"
                                              f"-{formatting.number(within.high)}]×")


def test_each_pass_shows_its_contenders_and_its_a_a_control_and_a_failed_one_stays_shown() -> None:
    """Issue 69: per pass each contender's capacity with its interval and the A/A ratio; a pass
    whose A/A interval excludes 1 is shown as failed, and over the passes the twin and the pool
    beside stand against their service with the false-positive rate."""
    def contender(found: int) -> list[tuple[int, bool]]:
        return [(p["rate"], p["held"]) for p in capacity_probes.around(found, found + capacity_probes.MISS_ABOVE)]

    rates = [{"go": 600, "go-again": 600, "java": 450, "java pool16": 500},
             {"go": 600, "go-again": 600, "java": 450, "java pool16": 500},
             {"go": 600, "go-again": 300, "java": 450, "java pool16": 500}]
    fits = tuple(capacity_model.fit_pass([(name, f"pass{i}", rate, held) for name, found in pass_rates.items()
                                          for rate, held in contender(found)])
                 for i, pass_rates in enumerate(rates))
    controls = tuple(capacity_model.control(fit, "go", "go-again") for fit in fits)
    passes = paired.Passes("split", tuple(SimpleNamespace(id=f"2026120{i}T000000Z-native-capacity")
                                          for i in range(1, 4)), {}, {}, fits=fits,
                           beside={"go-again": None, "java pool16": None}, controls=controls,
                           control=("go", "go-again"))
    each = tables.capacity_passes(passes).set_index("contender")
    assert list(each.index) == ["go", "go-again", "java", "java pool16", "A/A: go-again / go", "A/A: the pass"]
    assert list(each.columns) == [f"pass {i}: 2026120{i}T000000Z" for i in range(1, 4)]
    assert each.loc["A/A: the pass"].tolist() == ["held 1", "held 1", "failed"]
    low, high = fits[0].capacity("go").low, fits[0].capacity("go").high
    assert each.iloc[0, 0] == f"{fits[0].capacity('go').value:,.0f} [{low:,.0f}-{high:,.0f}]" and low < 600 < high
    beside = tables.capacity_beside(passes).set_index("contender")
    assert beside.loc["go-again", "against"] == "go" and beside.loc["java pool16", "against"] == "java"
    assert beside.loc["java pool16", "passes"] == 3 and beside.loc["java pool16", "differs"] == "yes"
    assert beside.loc["A/A control: failed passes", "capacity ratio [95 % interval]"].startswith("1 of 3: 33.3 [")


def test_passes_with_an_a_a_control_replace_the_older_ones(tmp_path: Path) -> None:
    """Two passes of issue 69's protocol (an A/A control) stand for the capacity over passes; one
    alone does not, and the older TUNED=both passes stand until a second one comes."""
    old = [a_pass(tmp_path, f"2026112{i}T000000Z-native-capacity", {"go": 600, "java": 450}, {"go": 650})
           for i in (1, 2)]
    new = [a_pass(tmp_path, f"2026120{i}T000000Z-native-capacity", {"go": 500, "java": 400}, control="go")
           for i in (1, 2)]
    passes = paired.of([*old, *new])
    assert [run.id for run in passes.runs] == [run.id for run in new] and passes.control == ("go", "go-again")
    assert list(passes.beside) == ["go-again"] and len(passes.controls) == 2
    assert [run.id for run in paired.of([*old, new[0]]).runs] == [run.id for run in old]
