"""What git carries under results/ stays small (results/LAYOUT.md): summaries and histograms, not
raw samples or built exports. Every clone carries every byte ever committed, so the budget is
held where it is cheap, before the commit."""

from __future__ import annotations

import subprocess
from collections import defaultdict
from pathlib import Path

import pandas as pd
import pytest

from bankbench import paths

MB, KB = 1_000_000, 1_000
RESULTS_MAX = 30 * MB  # all of results/
RUN_MAX = 3 * MB  # a run folder (one with a manifest.json)
# A level folder, its flame graph apart. Its histograms take most of it: ~190 bytes per label and
# second where latencies spread over seconds (cold Java at 10,000 users: 44 KB of histograms, 57 KB in all).
LEVEL_MAX = 60 * KB
# Known to be over LEVEL_MAX, each with why (issue 37 stays open while any is): a run named here
# is held to OVER_LEVEL_MAX per level instead, so that a new level over budget still fails.
PAST_CAPACITY = ("a service past its capacity answers 200, 503 and the 400s that follow per label and second, "
                 "the 200s' latencies spread over 0-1,000 ms: 32-80 KB of histograms, 59-96 KB a level")
OVER_BUDGET = {"runs/20261126T173925Z-native-overload": PAST_CAPACITY,  # 2x capacity for 60 s
               "placement/split": PAST_CAPACITY, "placement/shared": PAST_CAPACITY,  # java at 2,000 users
               "runs/20261127T051714Z-native-local": PAST_CAPACITY}  # both Java variants at 2,000 users
OVER_LEVEL_MAX = 100 * KB
FLAME_GRAPH_MAX = 250 * KB  # PROFILE_CPU=1's flamegraph.html: its profile is not kept, so it cannot be rebuilt
# Built on demand, never committed; raw samples stay on the machine that took them.
NEVER = ("results.html", "jmeter.csv", "jmeter.csv.gz", "jmeter.log", "gatling.csv", "gatling.csv.gz", "gatling.log",
         "cpu.jfr", "cpu.pprof")


def tracked() -> dict[Path, int]:
    """The size of every file git tracks under results/ (in the work tree: what a commit would hold)."""
    out = subprocess.run(["git", "ls-files", "-z", "results"], cwd=paths.ROOT, capture_output=True, check=True)
    names = [name for name in out.stdout.decode().split("\0") if name]
    return {Path(name): (paths.ROOT / name).stat().st_size for name in names if (paths.ROOT / name).exists()}


FILES = tracked()


def over(sizes: dict[Path, int], limit: int) -> list[str]:
    return [f"{path}: {size / KB:,.0f} KB > {limit / KB:,.0f} KB" for path, size in sorted(sizes.items())
            if size > limit]


def test_results_stay_under_budget() -> None:
    assert FILES, "git lists no file under results/: the test would pass on nothing"
    total = sum(FILES.values())
    assert total <= RESULTS_MAX, f"results/ holds {total / MB:.1f} MB > {RESULTS_MAX / MB:.0f} MB"


def test_each_run_and_level_stays_under_budget() -> None:
    runs, levels, graphs = defaultdict(int), defaultdict(int), {}
    for path, size in FILES.items():
        parts = path.parts
        if "levels" not in parts and (paths.ROOT / path.parent / "manifest.json").is_file():
            runs[path.parent] += size
        if "levels" in parts and len(parts) > parts.index("levels") + 2:
            run, level = Path(*parts[:parts.index("levels")]), Path(*parts[:parts.index("levels") + 2])
            runs[run] += size
            if path.name == "flamegraph.html":
                graphs[path] = size
            else:
                levels[level] += size
    assert runs, "no run folder found under results/"
    excused = {level: size for level, size in levels.items()
               if level.parent.parent.relative_to("results").as_posix() in OVER_BUDGET}
    held = {level: size for level, size in levels.items() if level not in excused}
    assert (over(runs, RUN_MAX) + over(held, LEVEL_MAX) + over(excused, OVER_LEVEL_MAX)
            + over(graphs, FLAME_GRAPH_MAX)) == []


@pytest.mark.parametrize("name", NEVER)
def test_nothing_raw_or_built_is_tracked(name: str) -> None:
    assert [str(path) for path in FILES if path.name == name] == []


def test_published_csv_lists_the_runs_kept() -> None:
    """results/published.csv names every run folder git carries, and only those, each with why."""
    listed = pd.read_csv(paths.ROOT / "results" / "published.csv")
    kept = {str(path.parent.relative_to("results")) for path in FILES if path.name == "manifest.json"}
    assert sorted(listed["run"]) == sorted(kept)
    assert listed["why"].str.len().gt(10).all()
