"""The rankings the report's sections show follow the data (publish.tables.rankings, over
analyse.findings.gaps): on synthetic findings, the service whose figures lead is named, a
difference within noise is called so, and a figure the load generator capped, or one without a
usable repeat, never leads; a cause (what sent the 503s, what ended a search, what capped a
capacity) is a table's cell from the record that shows it; the first table shows one figure with
its interval per cell (publish.tables.first), and the committed report opens on the verdict
written by hand (results/verdict.md, test_verdict)."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from pathlib import Path

import fake_records
import pandas as pd

from bankbench import paths
from bankbench.analyse import at_rate, capacity_figures, estimates, findings
from bankbench.analyse.capacity_figures import Capacity, Probed
from bankbench.analyse.findings import Cell, Findings, Verdict
from bankbench.analyse.overload import Outcome, Refusals
from bankbench.publish import report, tables
from bankbench.results.documents import Manifest
from bankbench.results.runs import Run

SERVICES = ("go", "java")
WHOLE_AS_DECIMAL = re.compile(r"(?<![\d.])\d[\d,]*\.0+(?![\d])")  # `4.00`, `10.0`: a whole number with decimals


def measured(*values: float) -> Cell:
    """A cell over `values`, one per repeat, every one counted."""
    return Cell(estimates.figure(pd.DataFrame({"x": values}), "x"), len(values), len(values))


def rate(found: float, missed: float, n: int = 4, bound: str = "") -> Cell:
    return Cell(estimates.Figure(found, found, missed, "", ()), n, n, bound=bound)


def searched(placement: str = "service-alone") -> Verdict:
    """The verdict of a capacity run under `placement` (its figures are the cells given)."""
    run = Run(Path("capacity"), Manifest.of(fake_records.manifest("capacity", "capacity", placement)), pd.DataFrame())
    return Verdict(run, None, 50.0, [], [], None)


def made(warm: dict[str, Cell] | None = None, cold: dict[str, Cell] | None = None,
         capacity: dict[str, Cell] | None = None, cpu: dict[str, Cell] | None = None,
         rss: dict[str, Cell] | None = None) -> Findings:
    """Findings of go and java: the cells given, no run for the others."""
    nothing = dict.fromkeys(SERVICES, Cell(missing="no run yet"))
    return Findings(
        SERVICES, 10_000, 1162.8, {"warm": warm or nothing, "cold": cold or nothing, "aot": nothing},
        capacity or nothing, cpu or nothing, rss or nothing,
        dict.fromkeys(SERVICES, 256), verdict=searched() if capacity else None, cores=2)


def leader(cells: dict[str, Cell], high_is_best: bool) -> tuple[str, dict[str, float]] | None:
    """findings.gaps: the service that leads and by what factor it beats each other one told apart."""
    found = findings.gaps(cells, high_is_best)
    return found and (found[0], {service: round(r.value if high_is_best else 1 / r.value, 2)
                                 for service, r in found[1] if r.significant})


def test_the_service_whose_figures_lead_is_named() -> None:
    """Java's warm p99 ten times lower: java leads, by 10×, the ratio's interval in its section."""
    f = made(warm={"go": measured(49, 50, 51), "java": measured(4.9, 5.0, 5.1)})
    assert leader(f.p99["warm"], high_is_best=False) == ("java", {"go": 10.0})
    (row,) = tables.rankings(f, "starts").to_dict("records")
    assert row | {"factor [95 % interval]": ""} == {
        "figure": "p99 ms warm, 10,000 users", "leads": "java 5", "other": "go 50 [49-51]",
        "factor [95 % interval]": "", "differs": "yes"}
    assert row["factor [95 % interval]"].startswith("10.0")


def test_a_difference_within_noise_is_called_so() -> None:
    f = made(warm={"go": measured(9, 10, 11), "java": measured(9.5, 10.5, 10.2)})
    assert leader(f.p99["warm"], high_is_best=False)[1] == {}
    assert tables.rankings(f, "starts")["differs"].tolist() == ["within noise"]


def test_a_capped_capacity_never_leads() -> None:
    """Java capped by the load generator at 125 it/s, above go's 93: no capacity is told apart."""
    f = made(capacity={"go": rate(93, 100), "java": rate(125, 137, bound=findings.GENERATOR_BOUND)})
    assert leader(f.capacity, high_is_best=True) is None


def bed_capped() -> Findings:
    """Under service-alone PostgreSQL and the load generator ran out of their core first (go ≥ 600,
    java ≥ 500); under split go held 600 (650 missed), java 400 (425 missed)."""
    bed = findings.BED_BOUND
    return dataclasses.replace(made(capacity={"go": rate(600, 650, bound=bed), "java": rate(500, 550, bound=bed)}),
                               split_capacity={"go": rate(600, 650, 5), "java": rate(400, 425, 3)})


def test_beside_a_capacity_the_test_bed_capped_the_split_one_is_ranked_and_shown() -> None:
    f = bed_capped()
    assert f.first_capacity == (f.split_capacity, "split")
    assert leader(f.split_capacity, high_is_best=True) == ("go", {"java": 1.5})
    assert tables.first(f)["it/s (split)"].tolist() == ["600 [600-650]", "400 [400-425]"]
    # capped only by the top rate tried: split's capacity is no stand-in
    top = {service: dataclasses.replace(cell, bound=findings.TOP_RATE) for service, cell in f.capacity.items()}
    assert dataclasses.replace(f, capacity=top).first_capacity[1] == "service-alone"


def test_capacities_apart_beyond_their_brackets_are_ranked() -> None:
    """Java held 125 it/s (137 missed), go 93 (100 missed): java's capacity 1.34× go's."""
    assert leader(made(capacity={"go": rate(93, 100), "java": rate(125, 137)}).capacity, True) == \
        ("java", {"go": 1.34})


def test_a_figure_without_usable_repeats_never_leads() -> None:
    """Java's repeats all invalid (the load generator fell short): no figure, however good it looked."""
    invalid = Cell(estimates.Figure(float("nan"), float("nan"), float("nan"), "", ()), 0, 3)
    f = made(warm={"go": measured(9, 10, 11), "java": invalid})
    assert leader(f.p99["warm"], high_is_best=False) is None  # nothing to compare
    assert tables.first(f)["p99 ms warm"].tolist() == ["10 [9-11]", "no usable repeat (0 of 3)"]


def test_the_first_table_holds_one_figure_per_cell_and_n_of_n_where_some_did_not_count() -> None:
    f = made(warm={"go": measured(9, 10, 11),
                   "java": Cell(estimates.figure(pd.DataFrame({"x": [5.0, 6.0]}), "x"), 2, 3)},
             capacity={"go": rate(93, 100, bound=findings.GENERATOR_BOUND), "java": rate(125, 137, 3)})
    f = dataclasses.replace(f, requests_per_iteration=7.0)
    table = tables.first(f, link=lambda header, question: f"[{header}](#{question})")
    assert list(table.columns) == [
        "service", "[req/s (service-alone)](#capacity)", "[it/s (service-alone)](#capacity)",
        "[p99 ms warm](#starts)", "[p99 ms cold](#starts)", "[p99 ms cold+AOT](#starts)",
        "[start-up ms cold](#starts)", "[start-up ms cold+AOT](#starts)", "[RSS MB](#common)",
        "[CPU ms/req](#common)", "[$/M req](#common)"]
    assert table["[start-up ms cold](#starts)"].tolist() == ["no make startup yet"] * 2
    assert table["[p99 ms warm](#starts)"].tolist() == ["10 [9-11]", "6 (2 of 3)"]
    assert table["[it/s (service-alone)](#capacity)"].tolist() == ["≥ 93", "125 [125-137]"]
    assert table["[req/s (service-alone)](#capacity)"].tolist() == ["≥ 651", "875 [875-959]"]
    assert table["[p99 ms cold](#starts)"].tolist() == ["no run yet"] * 2
    assert table["[RSS MB](#common)"].tolist() == ["no efficiency run yet"] * 2
    legend = report.legend(f)
    assert "p99 over 3 repeats" in legend and len(legend.split()) <= 100


def test_void_probes_are_no_failures() -> None:
    """Of 8 probes at the smallest heap, 4 held and the load generator spoiled 4: 4 of 4 counted."""
    heap = Probed(128, 8, 4, 0)
    c = Capacity("java", 500, 550, False, True, *[findings.NONE] * 5, heap, heap, None,
                 estimates.Figure(337.0, 336.0, 338.0, "repeats", (336.0, 337.0, 338.0)), swept=True)
    cell = findings._at_heap(c)
    assert (cell.n, cell.of) == (4, 4)


def level(service: str, refusals: Refusals | None, generator_ok: bool = True) -> Outcome:
    return Outcome(service, f"{service}-u500-p95-r1", 500, "RATE=", 87.2, 512.0, 15.0, 249.0, 3000,
                   ("200", "503"), 2, True, True, None, generator_ok, "" if generator_ok else "offered 86 %",
                   refusals)


def test_the_503s_past_capacity_are_laid_to_what_the_counters_show() -> None:
    """No pool wait timed out and the pool opened no connection: the admission limit sent them; every
    503 a pool timeout: the pool did; some pool timeouts beside the limit: both. A level the load
    generator fell short in is not judged."""
    table = tables.overload([level("go", Refusals(63_678, 0, 0, 1000)), level("java", Refusals(500, 500, 0, 1000)),
                             level("java-virtual", Refusals(600, 20, 0, 1000)),
                             level("java-helidon", None, generator_ok=False)])
    assert table["503s from"].tolist() == ["admission limit (1,000)", "pool acquire timeout",
                                           "pool acquire timeout (20) and admission limit (1,000)", "-"]
    assert table["held up"].iloc[-1] == "not judged: load generator short (offered 86 %)"


def test_a_search_says_whether_a_death_or_the_budget_ended_it(tmp_path: Path, level_json: Callable[..., dict]) -> None:
    """475, 500 and 550 held, then at 750 the service exited (its level records status 3): the search
    ended by its death, not by the budget; without the exit, the budget."""
    probes = [{"level": f"java-virtual-u{r}-p95-r1", "rate": r, "heap_mb": None, "held": r < 750,
               "missed": [] if r < 750 else ["p99", "errors"]} for r in (475, 500, 550, 750)]
    (tmp_path / "capacity.json").write_text(json.dumps(fake_records.capacity({"java-virtual": {"probes": probes}},
                                                                            budget_s=5400)))
    for probe in probes:
        folder = tmp_path / "levels" / probe["level"]
        folder.mkdir(parents=True)
        exited = {"service_exit": 3} if probe["rate"] == 750 else {}
        (folder / "level.json").write_text(json.dumps(level_json(service="java-virtual", **exited)))
    columns = ["level_id", "overall.throughput_rps", "overall.p99_ms", "efficiency.service_cpu_ms_per_request",
               "efficiency.pg_cpu_ms_per_request", capacity_figures.RSS, "money_ok", "loadgen.valid"]
    run = Run(tmp_path, Manifest.of(fake_records.manifest(tmp_path.name, "capacity")), pd.DataFrame(columns=columns))
    (died,) = capacity_figures.figures(run)
    assert (died.rate, died.held_once, died.exited, died.complete) == (None, 550, (750, 3), False)
    (row,) = tables.capacity_runs([run]).to_dict("records")
    assert (row["placement"], row["java-virtual it/s"], row["search ended"]) == (
        "split", "none confirmed (550 held once)", "service exited (status 3) at 750 (java-virtual)")
    # an exit at an earlier probe (a heap too small, say) did not end the search: the budget did
    for probe, level in ((probes[-1], level_json(service="java-virtual")), (probes[1], level_json(service_exit=3))):
        (tmp_path / "levels" / probe["level"] / "level.json").write_text(json.dumps(level))
    (row,) = tables.capacity_runs([run]).to_dict("records")
    assert (row["java-virtual it/s"], row["search ended"]) == ("none confirmed (550 held once)",
                                                               "budget ran out (java-virtual)")
    # a last probe the load generator's limit kept from running has no level: the one before it ended it
    (tmp_path / "levels" / probes[-1]["level"] / "level.json").write_text(json.dumps(level_json(service_exit=3)))
    beyond = {"level": "java-virtual-u900-p95-r1", "rate": 900, "heap_mb": None, "held": False,
              "missed": ["load generator"], "valid": False, "not_run": "offered 91.4 % of it there"}
    (tmp_path / "capacity.json").write_text(json.dumps(fake_records.capacity(
        {"java-virtual": {"probes": [*probes, beyond]}}, budget_s=5400)))
    (died,) = capacity_figures.figures(run)
    assert died.exited == (750, 3)


def test_the_committed_first_screen_reads_well() -> None:
    """results/report/README.md opens on the verdict written by hand, then its table, whose cells
    print no whole number as `N.00` and whose legend is at most 100 words."""
    text = (paths.ROOT / "results" / "report" / "README.md").read_text()
    assert text.startswith(f"{report.TITLE}\n\n{report.verdict_block(report.DEFAULT_OUT)}")
    lines = text.split(report.VERDICT_END)[1].splitlines()
    screen = lines[:next(i for i, line in enumerate(lines) if line.startswith("## "))]
    assert WHOLE_AS_DECIMAL.findall("\n".join(line for line in screen if line.startswith("|"))) == []
    legend = next(line for line in screen if line.startswith("Cells:"))
    assert len(legend.split()) <= 100 and legend.count(" of ") <= 3


def test_a_full_stack_frameworks_gap_splits_into_its_runtime_and_its_framework() -> None:
    """Issue 70: go (standard library), helidon (micro-framework on the JVM), java-virtual (full
    stack on the JVM) at 0.20, 0.25 and 0.30 CPU ms per request: the gap 1.5x, the runtime's part
    1.25x, the framework's 1.2x, and its share of the gap log 1.2 / log 1.5, 45 %."""
    cpu = {"go": measured(0.19, 0.20, 0.21), "helidon": measured(0.24, 0.25, 0.26),
           "java-virtual": measured(0.29, 0.30, 0.31)}
    f = dataclasses.replace(made(), services=("go", "java-virtual", "helidon"), common_rate=300,
                            at_rate={at_rate.CPU: cpu})
    table = tables.framework_and_runtime(f)
    assert list(table["full stack"].str.split().str[0].unique()) == ["java-virtual"]  # java: not among them
    row = table[table["figure"] == "CPU ms/request, both at 300 it/s"].iloc[0]
    assert row["full stack"].startswith("java-virtual 0.3 [") and row["micro-framework"].startswith("helidon 0.25 [")
    assert row["gap: full / standard"].startswith("1.5 [") and row["runtime: micro / standard"].startswith("1.25 [")
    assert row["framework: full / micro"].startswith("1.2 [") and row["framework's share of the gap"] == "45 %"
    assert "start-up ms cold" not in set(table["figure"])  # no start-up of helidon: nothing to split
