"""What git carries under results/ stays small (results/LAYOUT.md): summaries and histograms, not
raw samples or built exports. Every clone carries every byte ever committed, so the budget is
held where it is cheap, before the commit."""

from __future__ import annotations

import json
import subprocess
import zlib
from collections import defaultdict
from pathlib import Path

import pandas as pd
import pytest

from bankbench import paths
from bankbench.analyse import overload
from bankbench.publish.pages import page_name
from bankbench.results import files, soak_record

MB, KB = 1_000_000, 1_000
# All of results/. The campaign of issues 69-72 (four services) adds about 25 MB to the 30 the
# earlier rounds took: five capacity passes of seven contenders (2.5 MB each), tune, soak, efficiency,
# overload and the starts; the runs it supersedes leave the tree (and the report) once its figures
# replace theirs.
RESULTS_MAX = 60 * MB
RUN_MAX = 3 * MB  # a run folder (one with a manifest.json)
# A level folder, its flame graph apart. Its histograms take most of it: ~190 bytes per label and
# second where latencies spread over seconds (cold Java at 10,000 users: 44 KB of histograms, 57 KB in all).
LEVEL_MAX = 60 * KB
# A level past its service's capacity (one that shed load with 503s, or an overload level's twice
# its capacity) answers 200, 503 and the 400s that follow per label and second, the 200s' latencies
# spread over 0-1,000 ms: 32-80 KB of histograms, 59-96 KB a level. Their V2 encodings alone take
# 46 KB xz-compressed in the largest overload level, so no encoding of exact (1 ms) latencies per
# label and second fits LEVEL_MAX; such a level is held to OVER_LEVEL_MAX instead.
OVER_LEVEL_MAX = 100 * KB
# A make soak level is 30 measured minutes, not one: its histograms, metrics.csv, service metrics
# and PostgreSQL's figures every 10 s (pg_stats.csv) take 340-380 KB (run 20261207T102440Z).
SOAK_LEVEL_MAX = 450 * KB
# A full round of the capacity issue's runs (issue 34: the open-model profiles Gatling drives, and
# the crosscheck's JMeter half), regenerated once, adds at most this to every clone: the newest
# published run of each of these profiles under each CPU placement and settings, with its report
# page and charts, compressed as git stores them (zlib; histograms and charts barely shrink).
ROUND_PROFILES = ("efficiency", "capacity", "tune", "crosscheck", "crosscheck-gatling", "overload")
ROUND_MAX = 10 * MB
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


def past_capacity(level_dir: Path) -> bool:
    """Whether a level drove its service past its capacity: an overload level (phases) or one
    whose service shed load (503s in the measured window). A level that never started has neither file."""
    level, summary = level_dir / "level.json", level_dir / "summary.json"
    return ((level.is_file() and overload.is_phased(files.level_record(level_dir)))
            or (summary.is_file() and "503" in json.loads(summary.read_text())["overall"]["errors_by_status"]))


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
    soaked = {level: size for level, size in levels.items() if (paths.ROOT / level / soak_record.PG_STATS).is_file()}
    excused = {level: size for level, size in levels.items()
               if past_capacity(paths.ROOT / level) and level not in soaked}
    held = {level: size for level, size in levels.items() if level not in excused | soaked}
    assert (over(runs, RUN_MAX) + over(held, LEVEL_MAX) + over(excused, OVER_LEVEL_MAX)
            + over(soaked, SOAK_LEVEL_MAX) + over(graphs, FLAME_GRAPH_MAX)) == []


def one_round() -> dict[Path, int]:
    """Per run of a full round (ROUND_PROFILES), the bytes git stores for its files and its report
    page and charts."""
    newest: dict[tuple, Path] = {}
    for manifest in sorted(path for path in FILES if path.name == "manifest.json" and path.parts[1] == "runs"):
        doc = files.manifest((paths.ROOT / manifest).parent)  # run ids sort by time: the newest wins
        if doc.profile in ROUND_PROFILES:
            newest[doc.profile, doc.placement, bool(doc.tuned)] = manifest.parent
    stored = defaultdict(int)
    for run in newest.values():
        name = page_name(paths.ROOT / run)
        for path in FILES:
            if path.is_relative_to(run) or (path.parts[1] == "report" and path.name.startswith(name)):
                stored[run] += len(zlib.compress((paths.ROOT / path).read_bytes()))
    return stored


def test_a_full_round_stays_under_budget() -> None:
    stored = one_round()
    assert {run.name.split("-native-")[1] for run in stored} == set(ROUND_PROFILES), sorted(stored)
    total = sum(stored.values())
    biggest = ", ".join(f"{run.name} {size / MB:.2f} MB"
                        for run, size in sorted(stored.items(), key=lambda kv: -kv[1])[:3])
    assert total <= ROUND_MAX, (f"a round of {len(stored)} runs stores {total / MB:.1f} MB > "
                                f"{ROUND_MAX / MB:.0f} MB (the largest: {biggest})")


@pytest.mark.parametrize("name", NEVER)
def test_nothing_raw_or_built_is_tracked(name: str) -> None:
    assert [str(path) for path in FILES if path.name == name] == []


def test_published_csv_lists_the_runs_kept() -> None:
    """results/published.csv names every run folder git carries, and only those, each with why."""
    listed = pd.read_csv(paths.ROOT / "results" / "published.csv")
    kept = {str(path.parent.relative_to("results")) for path in FILES if path.name == "manifest.json"}
    assert sorted(listed["run"]) == sorted(kept)
    assert listed["why"].str.len().gt(10).all()


def test_past_capacity_is_read_from_the_levels_own_files() -> None:
    """The exception follows the level's figures: an overload level is past capacity, a warm
    article level (no 503) is not."""
    levels = {path.parent for path in FILES if path.name == "level.json"}
    overload = [level for level in levels if "-native-overload" in str(level)]
    warm = [level for level in levels if "-native-article-warm" in str(level)]
    assert overload and warm, "no committed overload or warm article level to read"
    assert all(past_capacity(paths.ROOT / level) for level in overload)
    assert not any(past_capacity(paths.ROOT / level) for level in warm)
