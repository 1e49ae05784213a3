"""The verdict's sentences follow the data (bankbench.analyse.conclusions): on synthetic findings,
the service whose figures lead is named, a difference within noise is called so, and a figure the
load generator capped, or one without a usable repeat, never leads; the first table shows each
figure with its interval and n of N (publish.tables.first)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd

from bankbench import estimates
from bankbench.analyse import conclusions, findings
from bankbench.analyse.findings import Cell, Findings
from bankbench.analyse.overload import Outcome
from bankbench.analyse.verdict import Verdict
from bankbench.publish import tables
from bankbench.results.runs import Run

SERVICES = ("go", "java")


def measured(*values: float) -> Cell:
    """A cell over `values`, one per repeat, every one counted."""
    return Cell(estimates.figure(pd.DataFrame({"x": values}), "x"), len(values), len(values))


def searched(placement: str = "service-alone") -> Verdict:
    """The verdict of a capacity run under `placement` (its figures are the cells given)."""
    run = Run(Path("capacity"), {"settings": {"cpu_placement": {"mode": placement}}}, pd.DataFrame())
    return Verdict(run, None, 50.0, [], [], None)


def made(warm: dict[str, Cell] | None = None, cold: dict[str, Cell] | None = None,
         capacity: dict[str, Cell] | None = None, cpu: dict[str, Cell] | None = None,
         rss: dict[str, Cell] | None = None, cost: dict[str, Cell] | None = None,
         database_cost: dict[str, Cell] | None = None) -> Findings:
    """Findings of go and java: the cells given, no run for the others."""
    nothing = dict.fromkeys(SERVICES, Cell(missing="no run yet"))
    return Findings(
        SERVICES, 10_000, {"warm": warm or nothing, "cold": cold or nothing, "aot": nothing},
        capacity or nothing, cpu or nothing, cost or nothing, database_cost or nothing, rss or nothing,
        dict.fromkeys(SERVICES, 256), verdict=searched() if capacity else None, cores=2)


def test_the_service_whose_figures_lead_is_named() -> None:
    """Java's warm p99 ten times lower: java leads, by "10.0× lower" with the ratio's interval."""
    text = conclusions.warm(made(warm={"go": measured(49, 50, 51), "java": measured(4.9, 5.0, 5.1)}))
    assert "java's p99 was lowest, 5.00 [4.90-5.10] ms: 10.0× lower than go's (95 % interval" in text
    assert "times" not in text and "within noise" not in text


def test_go_leading_by_hundreds_reads_as_a_factor() -> None:
    text = conclusions.cold(made(cold={"go": measured(6, 6, 7), "java": measured(2500, 2600, 2800)}))
    assert text.startswith("Cold (a new task scaling out), at 10,000 users, go's p99 was lowest")
    assert "433× lower than java's (95 % interval" in text


def test_a_difference_within_noise_is_called_so() -> None:
    text = conclusions.warm(made(warm={"go": measured(9, 10, 11), "java": measured(9.5, 10.5, 10.2)}))
    assert "the services' p99 was within noise (go 10.0 [9.00-11.0] ms, java 10.2 [9.50-10.5] ms)" in text
    assert "lowest" not in text


def test_a_capped_capacity_never_leads() -> None:
    """Java capped by the load generator at 125 it/s, above go's 93: no capacity is told apart."""
    capped = Cell(estimates.Figure(125.0, 125.0, 137.0, "", ()), 4, 4, bound=findings.GENERATOR_BOUND)
    found = Cell(estimates.Figure(93.0, 93.0, 100.0, "", ()), 4, 4)
    text = conclusions.cost(made(capacity={"go": found, "java": capped}))
    assert "no capacity is told apart (java ≥ 125 iterations/s (load generator): lower bounds" in text
    assert "highest" not in text
    assert "a capacity beyond what the load generator could offer" in conclusions.limits(made(
        capacity={"go": found, "java": capped}))


def test_beside_a_capacity_the_test_bed_capped_the_split_one_is_ranked() -> None:
    """Under service-alone PostgreSQL and the load generator ran out of their core first (go ≥ 600,
    java ≥ 500); under split go held 600 (650 missed), java 400 (425 missed): the verdict ranks
    split's, names what capped service-alone's, and the first table shows both."""
    bed = findings.BED_BOUND
    f = dataclasses.replace(
        made(capacity={"go": Cell(estimates.Figure(600.0, 600.0, 650.0, "", ()), 4, 4, bound=bed),
                       "java": Cell(estimates.Figure(500.0, 500.0, 550.0, "", ()), 4, 4, bound=bed)}),
        split_capacity={"go": Cell(estimates.Figure(600.0, 600.0, 650.0, "", ()), 5, 5),
                        "java": Cell(estimates.Figure(400.0, 400.0, 425.0, "", ()), 3, 3)})
    text = conclusions.cost(f)
    assert "no capacity is told apart (go ≥ 600 iterations/s (load generator beside PostgreSQL)" in text
    assert ("with the service and PostgreSQL on the same CPUs (split placement), go's capacity was highest, "
            "600 iterations/s (650 missed): 1.50× higher than java's") in text
    assert "the capacity of a service alone on its CPUs (PostgreSQL and the load generator" in conclusions.limits(f)
    assert "what the load generator could offer" not in conclusions.limits(f)
    # capped only by the top rate tried: split's capacity is no stand-in, and goes unranked
    top = {service: dataclasses.replace(cell, bound=findings.TOP_RATE) for service, cell in f.capacity.items()}
    assert "split placement" not in conclusions.cost(dataclasses.replace(f, capacity=top))
    assert tables.first(f)["capacity it/s, p99 <= 50 ms: service-alone; split"].tolist() == [
        "≥ 600 (load generator beside PostgreSQL), 4 of 4; 600 (650 missed), 5 of 5",
        "≥ 500 (load generator beside PostgreSQL), 4 of 4; 400 (425 missed), 3 of 3"]


def test_capacities_apart_beyond_their_brackets_are_ranked() -> None:
    """Java held 125 it/s (137 missed), go 93 (100 missed): java's capacity at least 1.25× go's."""
    text = conclusions.cost(made(capacity={"go": Cell(estimates.Figure(93.0, 93.0, 100.0, "", ()), 4, 4),
                                           "java": Cell(estimates.Figure(125.0, 125.0, 137.0, "", ()), 4, 4)}))
    assert "java's capacity was highest, 125 iterations/s (137 missed): 1.34× higher than go's" in text


def test_a_figure_without_usable_repeats_never_leads() -> None:
    """Java's repeats all invalid (the load generator fell short): no figure, however good it looked."""
    invalid = Cell(estimates.Figure(float("nan"), float("nan"), float("nan"), "", ()), 0, 3)
    f = made(warm={"go": measured(9, 10, 11), "java": invalid},
             rss={"go": measured(38, 39, 40), "java": measured(390, 395, 400), "java-virtual": invalid})
    assert conclusions.warm(f) is None  # nothing to compare
    assert conclusions.memory(f).endswith("(java-virtual: no usable repeat).")
    assert tables.first(f)["p99 ms warm"].tolist() == ["10.0 [9.00-11.0], 3 of 3", "no usable repeat, 0 of 3"]


def test_at_most_five_sentences_and_the_limits_last() -> None:
    f = made(warm={"go": measured(9, 10, 11), "java": measured(4.9, 5.0, 5.1)},
             cold={"go": measured(6, 6, 7), "java": measured(2500, 2600, 2800)},
             capacity={"go": Cell(estimates.Figure(93.0, 93.0, 100.0, "", ()), 4, 4),
                       "java": Cell(estimates.Figure(125.0, 125.0, 137.0, "", ()), 4, 4)},
             cpu={"go": measured(0.2, 0.21, 0.19), "java": measured(0.4, 0.41, 0.39)},
             rss={"go": measured(38, 39, 40), "java": measured(390, 395, 400)})
    told = conclusions.sentences(f)
    assert len(told) == 5 and told[-1].startswith("This test bed cannot tell")
    assert "the p99 after a cold+AOT start (no run yet)" in told[-1] and "2 cores shared" in told[-1]


def test_the_first_table_shows_intervals_and_n_of_n() -> None:
    f = made(warm={"go": measured(9, 10, 11),
                   "java": Cell(estimates.figure(pd.DataFrame({"x": [5.0, 6.0]}), "x"), 2, 3)},
             capacity={"go": Cell(estimates.Figure(93.0, 93.0, 100.0, "", ()), 4, 4, bound=findings.GENERATOR_BOUND),
                       "java": Cell(estimates.Figure(125.0, 125.0, 137.0, "", ()), 3, 5)})
    table = tables.first(f, link=lambda header, question: f"[{header}](#{question})")
    assert list(table.columns)[:2] == ["service", "[p99 ms warm](#starts)"] and len(table.columns) <= 8
    assert table["[p99 ms warm](#starts)"].tolist() == ["10.0 [9.00-11.0], 3 of 3", "5.50, 2 of 3"]
    assert table["[capacity it/s, p99 <= 50 ms](#capacity)"].tolist() == [
        "≥ 93 (load generator), 4 of 4", "125 (137 missed), 3 of 5"]
    assert table["[p99 ms cold; cold+AOT](#starts)"].tolist() == ["no run yet; no run yet"] * 2
    assert table["[past capacity: held up?](#overload)"].tolist() == ["no run yet"] * 2


def test_the_first_table_says_who_held_up_past_capacity_and_judges_nothing_the_generator_spoiled() -> None:
    def level(service: str, generator_ok: bool, p99_ms: float) -> Outcome:
        return Outcome(service, f"{service}-u500-p95-r1", 500, "RATE=", 87.2, 512.0, 15.0, p99_ms, 3000,
                       ("200", "503"), 2, True, True, None, generator_ok, "" if generator_ok else "offered 86 %")
    f = dataclasses.replace(made(), overload={"go": (level("go", True, 249.0),),
                                              "java": (level("java", False, 21_888.0),)})
    table = tables.first(f)
    assert table["past capacity: held up?"].tolist() == [
        "yes: 503 15.0 %, p99 249 ms, back in 2 s, RSS 87 of 512 MB, 1 of 1",
        "not judged: the load generator fell short: 503 15.0 %, p99 21,888 ms, back in 2 s, RSS 87 of 512 MB, 0 of 1"]


def test_the_first_table_prices_the_service_and_postgresql_apart_at_most_where_capped() -> None:
    """Go's capacity capped by the load generator: its cost at most what is shown ("≤"), PostgreSQL's
    an estimate beside it; java's capacity its own: no "≤"."""
    capped = Cell(estimates.Figure(93.0, 93.0, 100.0, "", ()), 4, 4, bound=findings.GENERATOR_BOUND)
    f = made(capacity={"go": capped, "java": Cell(estimates.Figure(125.0, 125.0, 137.0, "", ()), 4, 4)},
             cost={"go": Cell(estimates.Figure(0.00316, 0.00315, 0.00317, "", ()), 4, 4, bound=findings.COST_BOUND),
                   "java": Cell(estimates.Figure(0.0038, 0.0037, 0.0039, "", ()), 4, 4)},
             database_cost={"go": measured(0.00104, 0.001, 0.0011), "java": measured(0.0014, 0.0014, 0.0014)})
    table = tables.first(f)
    assert table["$ per 1M requests: service (m5.large) + PostgreSQL (c5d.large)"].tolist() == [
        "≤ 0.00316 [0.00315-0.00317] + 0.00104 [0.001-0.0011], 4 of 4",
        "0.0038 [0.0037-0.0039] + 0.0014, 4 of 4"]
    text = conclusions.cost(f)
    assert "the projected cost per million requests on m5.large follows the capacity (an upper bound" in text
    assert "PostgreSQL's on c5d.large its CPU time, a line of its own" in text
