"""`bankbench capacity` for real against the Go service and its A/A twin (`go-again`, a process of
its own), in a tiny budget: a staircase of one probe (the ladder's one rate), the long level at the
rate found, then a heap sweep of one size (GOMEMLIMIT from its registry entry), each probe a short
open-model level through Gatling on a real PostgreSQL, under one CPU placement (make capacity's
default is two, a run each); the run folder, capacity.json and the report's verdict built from them.

Needs the built Go service and Gatling; run it alone on a shared machine
(`flock /tmp/bankbench-bench.lock`)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bankbench import paths
from bankbench.analyse import base_rates, capacity_figures
from bankbench.publish import pages, report
from bankbench.results import capacities, probes, runs

pytestmark = pytest.mark.integration
BUDGET_MIN = 6
# The test is of the search, not of the machine: a 3 s probe's p99 is its ~4th slowest request, so
# one stall of the machine decides it (862 ms once, in a clean clone's CI, where other probes read
# 6 ms). A target that only a hang misses keeps the test to the search's steps.
P99_MS = 2000


@pytest.fixture(scope="module")
def searched(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, float, Path]:
    results = tmp_path_factory.mktemp("runs")
    rates = tmp_path_factory.mktemp("capacities") / "capacity.toml"
    started = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "bankbench", "capacity", "--service", "go", "--rates", "20",
                          "--probes", "1", "--control", "go", "--heaps", "64", "--repeat", "1", "--duration", "3",
                          "--warmup", "5", "--long", "4",
                          "--budget-min", str(BUDGET_MIN), "--cpu-placement", "split", "--p99-ms", str(P99_MS)],
                         env={**os.environ, "BANKBENCH_RUNS": str(results), "BANKBENCH_CAPACITIES": str(rates)},
                         cwd=paths.ROOT,
                         capture_output=True, text=True, timeout=60 * (BUDGET_MIN + 5))
    print(out.stdout[-6000:], out.stderr[-3000:])
    assert out.returncode == 0, out.stderr[-3000:]
    (run_dir,) = results.iterdir()
    return run_dir, out.stdout, time.monotonic() - started, rates


def test_the_search_found_the_rate_and_the_heap(searched) -> None:
    run_dir, stdout, _, _ = searched
    assert run_dir.name.endswith("-native-capacity")
    doc = json.loads((run_dir / runs.CAPACITY_FILE).read_text())
    assert doc["target"] == {"p99_ms": P99_MS, "max_error_pct": probes.MAX_ERROR_PCT}
    go, twin = doc["services"]["go"], doc["services"]["go-again"]
    # 20 iterations/s is far below what Go holds here: the ladder's one rate, probed, then held longer.
    assert go["rate"] == {"found": 20, "failed_at": None, "confirmations": 2, "staircase": None, "complete": True}
    assert go["heap"] == {"found": 64, "failed_at": None, "confirmations": 2, "complete": True, "rate": 20}
    assert [(p["level"], p["held"], p["valid"]) for p in go["probes"]] == [
        ("go-u20-p95-r1", True, True), ("go-u20-p95-r2", True, True),
        ("go-u20-p95-h64-r1", True, True), ("go-u20-p95-h64-r2", True, True)]
    # The rate found, held for a longer measured window, before the heap sweep: a probe like the others.
    assert (go["long"]["level"], go["long"]["long"], go["long"]["held"]) == ("go-u20-p95-r2", True, True)
    assert (doc["in_turn"], doc["long_s"], doc["design"]["probes"]) == (["go", "go-again"], 4, 1)
    # The A/A twin: the same settings under its own name, levels and warm process; no heap sweep.
    assert (twin["service"], twin["twin_of"], twin["pool"], "heap" in twin) == ("go", "go", 95, False)
    assert [p["level"] for p in twin["probes"]] == ["go-u20-p95-again-r1", "go-u20-p95-again-r2"]
    first = json.loads((run_dir / "levels" / "go-u20-p95-again-r1" / "level.json").read_text())
    assert "warmup" in first and first["settings_tag"] == "again"  # warmed up in its own process
    # Go has no JIT: warm when two rounds agree, a progress line each; the next probe at the same
    # settings is served by the same process, warmed up no more.
    warmed = json.loads((run_dir / "levels" / "go-u20-p95-r1" / "level.json").read_text())
    assert warmed["start"] == "warm" and warmed["warmup"]["warm"] and len(warmed["warmup"]["rounds"]) >= 2
    rounds = re.findall(r"^\[go probe 1\] go-u20-p95-r1 warm-up +\d+ s:", stdout, re.MULTILINE)
    assert len(rounds) == len(warmed["warmup"]["rounds"])
    again = json.loads((run_dir / "levels" / "go-u20-p95-r2" / "level.json").read_text())
    assert again["warm_since"] == "go-u20-p95-r1" and "warmup" not in again
    long_level = json.loads((run_dir / "levels" / "go-u20-p95-r2" / "level.json").read_text())
    assert long_level["duration_s"] == 4
    assert "held the target" in stdout and "go-u20-p95-h64-r2" in stdout  # progress lines
    calibrated = json.loads((run_dir / "calibration.json").read_text())["loads"]["20"]  # the probed rate's
    level = json.loads((run_dir / "levels" / "go-u20-p95-r1" / "level.json").read_text())
    assert level["calibration"] == calibrated and level["loadgen"]["valid"], level["loadgen"]


def test_each_probe_is_a_level_with_its_heap_and_figures(searched) -> None:
    run_dir = searched[0]
    level = json.loads((run_dir / "levels" / "go-u20-p95-h64-r1" / "level.json").read_text())
    assert (level["heap_mb"], level["model"], level["start"]) == (64, "open", "warm")
    summary = json.loads((run_dir / "levels" / "go-u20-p95-r1" / "summary.json").read_text())
    assert summary["loadgen"]["valid"] and summary["loadgen"]["offered_pct"] >= 99
    assert 0 < summary["efficiency"]["service_cpu_ms_per_request"] < 50


def test_it_adds_the_pass_to_the_file_the_other_profiles_read_their_rates_from(searched) -> None:
    """capacity.toml gains the pass: go and its twin's service at the model's capacity (both held
    every probe: the highest rate tried, a lower bound), which make overload, soak and tune read."""
    run_dir, _, _, rates = searched
    (found,) = capacities.read(rates)
    assert (found.run, found.placement, found.target.p99_ms) == (run_dir.name, "split", P99_MS)
    assert found.shipped == {"go": 20} and found.at_least == ("go",) and found.tuned == {}
    assert base_rates.rates("split", passes=[found]).rates == {"go": 20}


def test_the_budget_bounds_it(searched) -> None:
    assert searched[2] < 60 * BUDGET_MIN + 120  # the last probe may start just inside the budget


def test_the_report_starts_with_the_verdict(searched, tmp_path: Path) -> None:
    run_dir = searched[0]
    (go,) = capacity_figures.figures(runs.load_run(run_dir))
    assert (go.rate, go.heap.heap_mb) == (20, 64) and go.cpu_ms.value > 0 and go.rss_heap_mb.value > 0
    readme = report.build([run_dir], tmp_path).read_text()
    first_screen = readme[:readme.index("\n## ")]
    row = next(line for line in first_screen.splitlines() if line.startswith("| go "))
    assert re.search(r"\|\s*≥ 20\s*\|", row)  # the capacity, a lower bound: the top rate tried held
    assert readme.index("## Capacity and cost") < readme.index("## Memory")
    page = (tmp_path / "runs" / f"{run_dir.name}.md").read_text()
    assert "RSS vs heap" in page
    # a split capacity is not requests/s per service CPU: no cost projected from it, and the page says why
    assert pages.UNPROJECTED[capacity_figures.NOT_ALONE] in page
    assert "projected $ per 1M requests" not in page
