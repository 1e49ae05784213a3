"""The verdict's sentences follow the data (bankbench.publish.verdict_words): on synthetic findings,
the service whose figures lead is named, a difference within noise is called so, and a figure the
load generator capped, or one without a usable repeat, never leads; a sentence that names a cause
(what sent the 503s, what ended a search, what capped a capacity) takes it from the record that
shows it; the first screen's sentences agree with its table, which shows one figure with its
interval per cell (publish.tables.first), and the committed report's first screen reads so."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from bankbench import estimates, paths
from bankbench.analyse import capacity_figures, findings, paired
from bankbench.analyse.capacity_figures import Capacity, Probed
from bankbench.analyse.findings import Cell, Findings, Verdict
from bankbench.analyse.overload import Outcome, Refusals
from bankbench.publish import report, run_words, tables, verdict_words
from bankbench.results.documents import Manifest
from bankbench.results.runs import Run

from test_estimates import synthetic_run

SERVICES = ("go", "java")
WHOLE_AS_DECIMAL = re.compile(r"(?<![\d.])\d[\d,]*\.0+(?![\d])")  # `4.00`, `10.0`: a whole number with decimals


def measured(*values: float) -> Cell:
    """A cell over `values`, one per repeat, every one counted."""
    return Cell(estimates.figure(pd.DataFrame({"x": values}), "x"), len(values), len(values))


def rate(found: float, missed: float, n: int = 4, bound: str = "") -> Cell:
    return Cell(estimates.Figure(found, found, missed, "", ()), n, n, bound=bound)


def searched(placement: str = "service-alone") -> Verdict:
    """The verdict of a capacity run under `placement` (its figures are the cells given)."""
    run = Run(Path("capacity"), Manifest.of({"settings": {"cpu_placement": {"mode": placement}}}), pd.DataFrame())
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


def test_the_service_whose_figures_lead_is_named() -> None:
    """Java's warm p99 ten times lower: java leads, by "10× lower", the ratio's interval in its section."""
    f = made(warm={"go": measured(49, 50, 51), "java": measured(4.9, 5.0, 5.1)})
    assert verdict_words.warm(f) == ("Warm, at 10,000 users (about 1,160 requests/s), java's p99 was lowest: "
                                     "10× lower than go's.")
    assert "java's p99 was lowest, 5 [4.90-5.10] ms: 10.0× lower than go's (95 % interval" in \
        verdict_words.details(f, "starts")


def test_go_leading_by_hundreds_reads_as_a_factor() -> None:
    text = verdict_words.cold(made(cold={"go": measured(6, 6, 7), "java": measured(2500, 2600, 2800)}))
    assert text == "Cold, at 10,000 users (about 1,160 requests/s), go's p99 was lowest: 433× lower than java's."


def test_a_difference_within_noise_is_called_so() -> None:
    text = verdict_words.warm(made(warm={"go": measured(9, 10, 11), "java": measured(9.5, 10.5, 10.2)}))
    assert text.endswith("the services' p99 was within noise.") and "lowest" not in text


def test_a_capped_capacity_never_leads() -> None:
    """Java capped by the load generator at 125 it/s, above go's 93: no capacity is told apart."""
    text = verdict_words.capacity(made(capacity={"go": rate(93, 100),
                                                 "java": rate(125, 137, bound=findings.GENERATOR_BOUND)}))
    assert text == ("At p99 ≤ 50 ms, alone on its CPUs, one service outran the load generator, so there its "
                    "capacity is only known to be at least 125 iterations/s.")


def bed_capped() -> Findings:
    """Under service-alone PostgreSQL and the load generator ran out of their core first (go ≥ 600,
    java ≥ 500); under split go held 600 (650 missed), java 400 (425 missed)."""
    bed = findings.BED_BOUND
    return dataclasses.replace(made(capacity={"go": rate(600, 650, bound=bed), "java": rate(500, 550, bound=bed)}),
                               split_capacity={"go": rate(600, 650, 5), "java": rate(400, 425, 3)})


def test_beside_a_capacity_the_test_bed_capped_the_split_one_is_ranked_and_shown() -> None:
    f = bed_capped()
    assert verdict_words.capacity(f) == (
        "At p99 ≤ 50 ms, beside PostgreSQL, go's capacity was highest: 1.50× higher than java's; alone on its "
        "CPUs, each service outran the load generator beside PostgreSQL, so there its capacity is only known "
        "to be at least 500-600 iterations/s.")
    assert tables.first(f)["capacity it/s (split)"].tolist() == ["600 [600-650]", "400 [400-425]"]
    # capped only by the top rate tried: split's capacity is no stand-in, and goes unranked
    top = {service: dataclasses.replace(cell, bound=findings.TOP_RATE) for service, cell in f.capacity.items()}
    assert "PostgreSQL" not in verdict_words.capacity(dataclasses.replace(f, capacity=top))


def test_capacities_apart_beyond_their_brackets_are_ranked() -> None:
    """Java held 125 it/s (137 missed), go 93 (100 missed): java's capacity 1.34× go's."""
    text = verdict_words.capacity(made(capacity={"go": rate(93, 100), "java": rate(125, 137)}))
    assert text == "At p99 ≤ 50 ms, alone on its CPUs, java's capacity was highest: 1.34× higher than go's."


def test_a_figure_without_usable_repeats_never_leads() -> None:
    """Java's repeats all invalid (the load generator fell short): no figure, however good it looked."""
    invalid = Cell(estimates.Figure(float("nan"), float("nan"), float("nan"), "", ()), 0, 3)
    f = made(warm={"go": measured(9, 10, 11), "java": invalid},
             rss={"go": measured(38, 39, 40), "java": measured(390, 395, 400), "java-virtual": invalid})
    assert verdict_words.warm(f) is None  # nothing to compare
    assert verdict_words.costs(f).endswith("(java-virtual: no usable repeat).")
    assert tables.first(f)["p99 ms warm"].tolist() == ["10 [9-11]", "no usable repeat (0 of 3)"]


def test_at_most_five_sentences() -> None:
    f = made(warm={"go": measured(9, 10, 11), "java": measured(4.9, 5.0, 5.1)},
             cold={"go": measured(6, 6, 7), "java": measured(2500, 2600, 2800)},
             capacity={"go": rate(93, 100), "java": rate(125, 137)},
             cpu={"go": measured(0.2, 0.21, 0.19), "java": measured(0.4, 0.41, 0.39)},
             rss={"go": measured(38, 39, 40), "java": measured(390, 395, 400)})
    told = verdict_words.sentences(f)
    assert len(told) == 4 and told[-1].startswith("At its capacity, go's CPU per request was lowest: 2× lower")
    assert verdict_words.cold(f).startswith("Cold, go's p99")  # the users said once, in the first


def test_the_first_table_holds_one_figure_per_cell_and_n_of_n_where_some_did_not_count() -> None:
    f = made(warm={"go": measured(9, 10, 11),
                   "java": Cell(estimates.figure(pd.DataFrame({"x": [5.0, 6.0]}), "x"), 2, 3)},
             capacity={"go": rate(93, 100, bound=findings.GENERATOR_BOUND), "java": rate(125, 137, 3)})
    table = tables.first(f, link=lambda header, question: f"[{header}](#{question})")
    assert list(table.columns)[:4] == ["service", "[start-up s cold](#starts)", "[start-up s cold+AOT](#starts)",
                                       "[p99 ms warm](#starts)"] and len(table.columns) <= 8
    assert table["[start-up s cold](#starts)"].tolist() == ["no make startup yet"] * 2
    assert table["[p99 ms warm](#starts)"].tolist() == ["10 [9-11]", "5.50 (2 of 3)"]
    assert table["[capacity it/s](#capacity)"].tolist() == ["≥ 93", "125 [125-137]"]
    assert table["[p99 ms cold](#starts)"].tolist() == ["no run yet"] * 2
    cells = [cell for row in tables.first_cells(f).values() for cell, _ in row.values()]
    legend = verdict_words.legend(f, cells)
    assert '"2 of 3": 2 of its 3 repeats counted' in legend and len(legend.split()) <= 80


def test_void_probes_are_no_failures() -> None:
    """Of 8 probes at the smallest heap, 4 held and the load generator spoiled 4: 4 of 4 counted."""
    heap = Probed(128, 8, 4, 0)
    c = Capacity("java", 500, 550, False, True, *[findings.NONE] * 5, heap, heap, None,
                 estimates.Figure(337.0, 336.0, 338.0, "repeats", (336.0, 337.0, 338.0)), swept=True)
    cell = findings._at_heap(c)
    assert (cell.n, cell.of) == (4, 4)


def level(service: str, refusals: Refusals | None, generator_ok: bool = True, p99_ms: float = 249.0) -> Outcome:
    return Outcome(service, f"{service}-u500-p95-r1", 500, "RATE=", 87.2, 512.0, 15.0, p99_ms, 3000,
                   ("200", "503"), 2, True, True, None, generator_ok, "" if generator_ok else "offered 86 %",
                   refusals)


def overloaded(**levels: Outcome) -> Findings:
    run = Run(Path("overload"), Manifest.of({"settings": {"profile": {"phases": [[30, 0.5], [60, 2], [60, 0.5]]}}}),
              pd.DataFrame())
    return dataclasses.replace(made(), overload_run=run, overload={s: (o,) for s, o in levels.items()})


def test_the_503s_past_capacity_are_laid_to_what_the_counters_show() -> None:
    """No pool wait timed out and the pool opened no connection: the admission limit sent them; every
    503 a pool timeout: the pool did."""
    admission = overloaded(go=level("go", Refusals(63_678, 0, 0, 1000)), java=level("java", Refusals(400, 0, 0, 1000)))
    assert verdict_words.past(admission) == (
        "At 2× its capacity, every service held up: the 503s came from the admission limit (1,000 requests at "
        "once: no pool wait timed out), and the p99 was back under 50 ms within 2 s.")
    pool = overloaded(go=level("go", Refusals(500, 500, 0, 1000)))
    assert "the 503s came from the pool: no connection within the acquire timeout" in verdict_words.past(pool)
    assert "admission" not in verdict_words.past(pool)
    spoiled = overloaded(go=level("go", Refusals(500, 0, 0, 1000)), java=level("java", None, False, 21_888.0))
    assert verdict_words.past(spoiled).startswith(
        "At 2× its capacity, go held up; java was not judged (the load generator fell short)")


def test_a_run_page_lays_its_503s_to_what_the_counters_show() -> None:
    """The same 503s, counted by the service with no pool timeout, or with as many pool timeouts."""
    def summary(timeouts: float) -> pd.DataFrame:
        return synthetic_run({"go": 1.0}).assign(**{
            "overall.errors_by_status.503": 300.0, "service_metrics.requests_by_status.503": 300.0,
            "service_metrics.pool_timeouts": timeouts, "service_metrics.pool_created": 0.0})
    refused = run_words.statuses(summary(0.0), "users", 1000)
    assert "503: from go, the admission limit (1,000 requests at once: no pool wait timed out)" in refused
    assert "acquire timeout" not in refused
    timed_out = run_words.statuses(summary(300.0), "users", 1000)
    assert "503: from go, the pool: no connection within the acquire timeout" in timed_out
    assert "no counter that tells why" in run_words.statuses(synthetic_run({"go": 1.0}).assign(
        **{"overall.errors_by_status.503": 300.0}), "users")


def test_a_search_says_whether_a_death_or_the_budget_ended_it(tmp_path: Path, level_json: Callable[..., dict]) -> None:
    """475, 500 and 550 held, then at 750 the service exited (its level records status 3): the search
    ended by its death, not by the budget; without the exit, the budget."""
    probes = [{"level": f"java-virtual-u{r}-p95-r1", "rate": r, "heap_mb": None, "held": r < 750,
               "missed": [] if r < 750 else ["p99", "errors"]} for r in (475, 500, 550, 750)]
    (tmp_path / "capacity.json").write_text(pd.Series({
        "target": {"p99_ms": 50.0, "max_error_pct": 0.1}, "budget_s": 5400,
        "services": {"java-virtual": {"probes": probes}}}).to_json())
    for probe in probes:
        folder = tmp_path / "levels" / probe["level"]
        folder.mkdir(parents=True)
        exited = {"service_exit": 3} if probe["rate"] == 750 else {}
        (folder / "level.json").write_text(json.dumps(level_json(service="java-virtual", **exited)))
    columns = ["level_id", "overall.throughput_rps", "overall.p99_ms", "efficiency.service_cpu_ms_per_request",
               "efficiency.pg_cpu_ms_per_request", capacity_figures.RSS, "money_ok", "loadgen.valid"]
    run = Run(tmp_path, Manifest.of({"settings": {"cpu_placement": {"mode": "split"}}}), pd.DataFrame(columns=columns))
    (died,) = capacity_figures.figures(run)
    assert (died.rate, died.held_once, died.exited, died.complete) == (None, 550, (750, 3), False)
    assert verdict_words.rate_text(died) == (
        "none confirmed: 550 held; the service exited (status 3) at 750, which ended the search")
    # an exit at an earlier probe (a heap too small, say) did not end the search: the budget did
    for probe, level in ((probes[-1], level_json(service="java-virtual")), (probes[1], level_json(service_exit=3))):
        (tmp_path / "levels" / probe["level"] / "level.json").write_text(json.dumps(level))
    (budget,) = capacity_figures.figures(run)
    assert verdict_words.rate_text(budget) == "none confirmed: 550 held; budget ran out"


@pytest.mark.parametrize("split", [None, {"go": rate(400, 425), "java": rate(400, 425)}], ids=["apart", "within noise"])
def test_the_first_screen_fits_and_its_capacity_sentence_reads_its_table(tmp_path: Path, split: dict | None) -> None:
    f = bed_capped() if split is None else dataclasses.replace(bed_capped(), split_capacity=split)
    screen = "\n\n".join(report.first_screen(f, tmp_path)).splitlines()
    assert len(screen) <= 25 and not WHOLE_AS_DECIMAL.findall("\n".join(screen))
    check_capacity_sentence(screen)


TUNED_CLAUSE = "; at the settings make tune found, "  # verdict_words.capacity: the tuned ranking after the shipped


def check_capacity_sentence(screen: list[str], passes: paired.Passes | None = None) -> None:
    """The sentence that ranks capacities names the service the table's capacity column puts first,
    by the ratio of the table's figures or, over `passes`, the median of the ratios within each run
    (paired module doc), which the table's medians need not give; it never says in the same breath
    that none is told apart. Or, where it says the capacities were within noise, that no ratio over
    `passes` is told apart from 1. A ranking at the tuned settings after it is held to the tuned
    column and the passes' tuned capacities alike."""
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in screen if line.startswith("|")]
    header, body = rows[0], rows[2:]
    (told,) = [line for line in screen if re.search(r"capacity was (highest|within noise)", line)]
    shipped, _, tuned = told.partition(TUNED_CLAUSE)
    columns = [i for i, name in enumerate(header) if "capacity it/s" in name]
    parts = [(shipped, columns[0], passes and passes.shipped)]
    if tuned:
        parts.append((tuned.split("; ")[0], columns[1], passes and passes.tuned))
    for part, column, over in parts:
        check_ranking(part, {row[0]: float(row[column].lstrip("≥ ").split(" ")[0].replace(",", "")) for row in body},
                      over)


def check_ranking(told: str, capacities: dict[str, float], over: dict[str, paired.Over] | None) -> None:
    """One ranking of `capacities` (check_capacity_sentence), `over` the passes where there are some."""
    leader = max(capacities, key=capacities.get)
    if "capacity was within noise" in told:  # no ratio to the leader told apart from 1
        assert "was highest" not in told
        if over:
            assert not any(estimates.ratio(over[other].figure, over[leader].figure).significant
                           for other in capacities if other != leader)
        return
    assert f"{leader}'s capacity was highest" in told and "told apart" not in told
    for factor, others in re.findall(r"([\d.]+)× higher than ((?:[\w-]+'s(?: and )?)+)", told):
        for other in re.findall(r"([\w-]+)'s", others):
            expected = (estimates.ratio(over[other].figure, over[leader].figure).value
                        if over else capacities[leader] / capacities[other])
            assert float(factor) == pytest.approx(expected, rel=0.01)


def test_the_committed_first_screen_reads_well() -> None:
    """results/report/README.md: the first screen fits in 25 lines, prints no whole number as `N.00`,
    its legend is at most 80 words, and its capacity sentence agrees with its table."""
    lines = (paths.ROOT / "results" / "report" / "README.md").read_text().splitlines()
    screen = lines[:next(i for i, line in enumerate(lines) if line.startswith("## "))]
    assert len(screen) <= 25 and WHOLE_AS_DECIMAL.findall("\n".join(lines[:25])) == []
    legend = next(line for line in screen if line.startswith("Cells:"))
    assert len(legend.split()) <= 80 and legend.count(" of ") <= 3
    check_capacity_sentence(screen, paired.under())
