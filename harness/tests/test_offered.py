"""The load generator's gate on open-model levels and the CPU per request, on constructed levels
summarized by the real analysis code: a level whose generator started fewer iterations than the
plan's rate, or started them late, is invalid in its summary.json, summary.csv and the capacity
search's verdict (bankbench.load.validity)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import fake_records
import pandas as pd
import pytest

from bankbench.analyse import capacity_figures, estimates
from bankbench.analyse.capacity_figures import Capacity
from bankbench.analyse.levels import summarize_level, summarize_run
from bankbench.load import generators
from bankbench.publish import tables
from bankbench.results import compaction, files, summaries
from bankbench.results.documents import LevelSummary
from bankbench.results.probes import Search, Target

STARTED_MS = 1_795_000_000_000
RATE, WARMUP_S, DURATION_S = 100, 5, 20


def make_level(levels: Path, name: str, achieved: float, service_cpu_pct: float = 50.0, late_s: float = 0) -> Path:
    """An open-model level offering RATE iterations/s whose generator started `achieved` per
    second, the last 5 % of them `late_s` late, each iteration two 10 ms requests on a thread of
    its own (as JMeter names them)."""
    out = levels / name
    out.mkdir(parents=True)
    arrivals_s = WARMUP_S + DURATION_S
    level = {"service": "go", "users": RATE, "pool": 95, "repeat": int(name.rsplit("-r", 1)[1]), "model": "open",
             "profile": "efficiency",
             "scenario": "rematch", "start": "warm", "generator": "jmeter", "warmup_s": WARMUP_S, "rampup_s": 0,
             "duration_s": DURATION_S,
             "measure_offset_s": WARMUP_S, "expected_s": arrivals_s + 10, "pg_max_connections": 100,
             "load_properties": {"users": 0, "rate": RATE, "arrivals_s": arrivals_s, "drain_s": 10},
             "arrivals": {"rate": RATE, "window_s": arrivals_s},
             "started_ms": STARTED_MS, "measure_from_ms": STARTED_MS + 1000 * WARMUP_S,
             "ended_ms": STARTED_MS + 1000 * (arrivals_s + 2)}
    (out / "level.json").write_text(json.dumps(level))
    count = int(arrivals_s * achieved)
    starts = [STARTED_MS + round(i * 1000 / achieved + (1000 * late_s if i >= 0.95 * count else 0))
              for i in range(count)]
    samples = pd.DataFrame([
        {"timeStamp": t + 10 * step, "elapsed": 10, "label": "balance", "responseCode": 200,
         "responseMessage": "OK", "threadName": f"open arrivals 2-{i + 1}", "success": True}
        for i, t in enumerate(starts) for step in (0, 1)])
    samples.to_csv(out / generators.LEVEL_SAMPLES["jmeter"], index=False)
    seconds = range(0, arrivals_s + 3)
    pd.DataFrame({"t_ms": [STARTED_MS + 1000 * s for s in seconds], "service_cpu_pct": service_cpu_pct,
                  "service_rss_mb": 40.0, "pg_cpu_pct": 20.0, "pg_rss_mb": 300.0, "loadgen_cpu_pct": 30.0,
                  "machine_cpu_pct": 50.0}).to_csv(out / "metrics.csv", index=False)
    files.write_money(out, fake_records.BALANCED)
    compaction.compact(out)
    return out


@pytest.fixture
def levels(tmp_path: Path) -> Path:
    return tmp_path / "run" / "levels"


def test_a_level_that_started_fewer_iterations_than_planned_is_invalid(levels: Path) -> None:
    short = summarize_level(make_level(levels, "go-u100-p95-r1", achieved=90.0))
    assert short["loadgen"]["planned_rate"] == RATE
    assert short["loadgen"]["offered_pct"] == pytest.approx(90, abs=0.1)
    assert short["loadgen"]["valid"] is False and "offered 90.0 %" in short["loadgen"]["reasons"]
    # Its latency and errors are perfect: the gate alone makes it miss the capacity target.
    assert short["overall"]["p99_ms"] == 10 and short["overall"]["error_pct"] == 0
    judged = LevelSummary.of(short)
    assert Target().misses(judged) == ["load generator"] and not Target().held(judged)
    full = summarize_level(make_level(levels, "go-u100-p95-r2", achieved=100.0))
    assert full["loadgen"]["offered_pct"] == pytest.approx(100, abs=0.1) and full["loadgen"]["valid"] is True
    assert Target().held(LevelSummary.of(full))


def test_a_generator_that_fell_behind_and_caught_up_late_is_invalid(levels: Path) -> None:
    """Every arrival started, but the last 5 % three seconds after the schedule ended."""
    late = summarize_level(make_level(levels, "go-u100-p95-r1", achieved=100.0, late_s=3))
    assert late["loadgen"]["offered_pct"] < 90 and late["loadgen"]["valid"] is False


def test_the_gate_reaches_summary_csv(levels: Path) -> None:
    make_level(levels, "go-u100-p95-r1", achieved=90.0)
    make_level(levels, "go-u100-p95-r2", achieved=100.0)
    summary = summarize_run(levels.parent)
    assert list(summary[summaries.VALID]) == [False, True]


def test_cpu_per_request_is_the_service_own_cpu_over_the_throughput(levels: Path) -> None:
    summary = summarize_level(make_level(levels, "go-u100-p95-r1", achieved=100.0, service_cpu_pct=50.0))
    rps = summary["overall"]["throughput_rps"]  # two requests per iteration: ~200/s
    assert rps == pytest.approx(200, rel=0.01)
    # Half a core is 500 CPU ms each second, over ~200 requests: 2.5 ms each; PostgreSQL 20 %: 1 ms.
    assert summary["efficiency"]["service_cpu_ms_per_request"] == pytest.approx(500 / rps, abs=0.001)
    assert summary["efficiency"]["pg_cpu_ms_per_request"] == pytest.approx(200 / rps, abs=0.001)


def test_a_closed_model_plans_no_rate(levels: Path) -> None:
    out = make_level(levels, "go-u100-p95-r1", achieved=50.0)
    level = json.loads((out / "level.json").read_text())
    (out / "level.json").write_text(json.dumps({**level, "model": "sustained", "arrivals": None}))
    summary = summarize_level(out)
    assert summary["loadgen"]["valid"] and summary["loadgen"].get("offered_pct") is None


NO_FIGURE = estimates.Figure(float("nan"), float("nan"), float("nan"), "", ())


def probe(rate: int, missed: list[str], heap_mb: int | None = None) -> dict:
    """One probe of a capacity search's record, as capacity.json holds it."""
    heap = f"-h{heap_mb}" if heap_mb else ""
    return {"level": f"go-u{rate}-p95{heap}-r1", "rate": rate, "heap_mb": heap_mb, "held": not missed,
            "missed": missed}


def capacity(record: dict, rate: int, failed_at: int | None) -> Capacity:
    """The figures-free capacity that `record` (a service's capacity.json entry) gives."""
    search = Search.of(fake_records.contender("go", record))
    return Capacity("go", rate, failed_at, capacity_figures._generator_missed(search, failed_at), True,
                    *[NO_FIGURE] * 5, None, *capacity_figures.smallest_heap(search, rate), NO_FIGURE)


def shown(c: Capacity) -> dict[str, str]:
    """The row of `c` in the capacity run's table (tables.verdict)."""
    (row,) = tables.verdict([c], [], 50.0).to_dict("records")
    return row


def test_a_capacity_the_generator_capped_is_a_lower_bound() -> None:
    """A search whose failing rate failed for the load generator reports the rate as the
    generator's, at least what the service holds; one that failed for its p99 as the service's."""
    capped = {"probes": [probe(200, []), probe(400, ["load generator"])]}
    missed = {"probes": [probe(200, []), probe(400, ["p99"])]}
    rows = [shown(capacity(record, 200, 400)) for record in (capped, missed)]
    assert [(row["capacity it/s at p99 <= 50 ms"], row["missed at it/s"], row["bound by"]) for row in rows] == [
        ("≥ 200", "400", "load generator"), ("200", "400", "-")]


def test_a_capacity_capped_beside_postgresql_says_so() -> None:
    """Under service-alone PostgreSQL shares the load generator's CPU: where the generator fell
    short, the table names both, as the limit is the test bed's, not the generator's alone."""
    capped = dataclasses.replace(capacity({"probes": [probe(200, []), probe(400, ["load generator"])]}, 200, 400),
                                 postgres_beside_loadgen=True)
    assert shown(capped)["bound by"] == "load generator beside PostgreSQL"
    assert capped.bound


@pytest.mark.parametrize(("probes_128", "at_128"), [
    ([["load generator"], ["load generator"]], "load generator fell short"),
    ([["p99"], ["load generator"]], "missed in 1 of 2"),  # the generator's miss says nothing
    ([["load generator"], ["p99"], []], "as many probes missed as held"),
    ([["p99"], ["p99"], []], "missed in 2 of 3"),
])
def test_a_heap_missed_only_where_most_of_its_probes_missed(probes_128: list[list[str]], at_128: str) -> None:
    """A probe that missed by the load generator alone says nothing of the heap; of the others,
    most decide, in whatever order they ran."""
    record = {"probes": [probe(125, [], 256), *(probe(125, missed, 128) for missed in probes_128)]}
    row = shown(capacity(record, 125, None))
    assert (row["smallest heap MB"], row["heap below MB"], row["at the heap below"]) == ("256", "128", at_128)


def test_a_heap_that_held_in_most_probes_held() -> None:
    """Go's 64 MB at 93 iterations/s in the committed capacity run: 3 of 4 probes held (one at 52 ms)."""
    record = {"probes": [probe(93, [], 128), *(probe(93, [], 64) for _ in range(3)), probe(93, ["p99"], 64)]}
    heap, below = capacity_figures.smallest_heap(Search.of(fake_records.contender("go", record)), 93)
    assert (heap.heap_mb, heap.held, heap.probes, below) == (64, 3, 4, None)
    row = shown(capacity(record, 93, None))
    assert (row["smallest heap MB"], row["heap below MB"], row["at the heap below"]) == ("64", "none probed", "-")


def test_the_efficiency_table_shows_each_repeat_of_a_rate_with_an_invalid_one(levels: Path) -> None:
    make_level(levels, "go-u100-p95-r1", achieved=90.0)
    make_level(levels, "go-u100-p95-r2", achieved=100.0)
    rows = tables.efficiency(summarize_run(levels.parent)).to_dict("records")
    assert [(row["repeats"], row["offered %"]) for row in rows] == [("r1 INVALID", "90.0"), ("r2", "100")], rows
