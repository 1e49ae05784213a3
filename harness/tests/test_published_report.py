"""The committed report (results/report/): the runs it shows are those results/published.csv
lists; every folder it lists, runs and experiments kept beside them, has a page, and no other
folder; its index opens on the verdict within a screen and fits in INDEX_LINES lines; and a rebuild from
the same runs writes the same bytes."""

from __future__ import annotations

import filecmp
import functools
import json
import os
import re
import shutil
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import fake_records
import pandas as pd
import pytest

from bankbench import paths
from bankbench.analyse import levels
from bankbench.errors import UserError
from bankbench.publish import pages, report
from bankbench.results import runs
from bankbench.results.documents import Manifest

from test_analysis import FIXTURES, RUN_ID
from test_results_size import tracked

REPORT = paths.ROOT / "results" / "report"
INDEX_LINES = 440  # 400 until Helidon added its rows and the split; 420 until make soak's section


def made(root: Path, name: str, profile: str) -> Path:
    """A run folder holding only its manifest (enough to be found)."""
    (root / name).mkdir(parents=True)
    (root / name / "manifest.json").write_text(json.dumps(fake_records.manifest(name, profile)))
    return root / name


def test_the_published_runs_are_the_default(tmp_path: Path) -> None:
    """results/published.csv decides which runs are shown, whatever is newer; a runs folder it
    names none of (BANKBENCH_RUNS elsewhere) shows the latest run of each profile."""
    root = tmp_path / "results" / "runs"
    kept = [made(root, "20260102T000000Z-native-local", "local"),
            made(root, "20260101T000000Z-native-article", "article")]
    newer = made(root, "20260103T000000Z-native-local", "local")
    listing = tmp_path / "results" / "published.csv"
    listing.write_text("run,profile,why\n" + "".join(f"runs/{path.name},x,kept for a reason\n" for path in kept))
    assert runs.published(root, listing) == kept[::-1]  # by profile: article, local
    assert runs.unpublished(root, listing) == [newer]
    assert runs.default_selection(tmp_path / "elsewhere") == []
    assert runs.published(root, tmp_path / "none.csv") == []


def test_the_experiments_kept_beside_the_runs_are_the_other_folders_listed(tmp_path: Path) -> None:
    """The folders results/published.csv names outside results/runs/ (experiments) get pages
    beside the published runs; none where the runs folder holds none of the listed runs."""
    root = tmp_path / "results" / "runs"
    run = made(root, "20260101T000000Z-native-article", "article")
    listing = tmp_path / "results" / "published.csv"
    listing.write_text(f"run,profile,why\nruns/{run.name},article,a run\nbefore-after/before,article,an experiment\n")
    assert runs.kept_beside(root, listing) == [tmp_path / "results" / "before-after" / "before"]
    assert runs.kept_beside(tmp_path / "elsewhere", listing) == []


def test_a_page_is_named_by_its_folder_under_results() -> None:
    assert pages.page_name(paths.RESULTS / "runs" / "20261127T051714Z-native-local") == "20261127T051714Z-native-local"
    assert pages.page_name(paths.RESULTS / "before-after" / "before") == "before-after-before"
    assert pages.page_name(paths.RESULTS / "cold-start" / "runs" / "X") == "cold-start-runs-X"
    assert pages.page_name(Path("/elsewhere/runs/X")) == "X"


def test_the_committed_report_has_a_page_per_published_folder_and_no_other() -> None:
    """Every folder results/published.csv lists, runs and experiments, has a page linked from the
    index; no other page is there."""
    names = sorted(pages.page_name(path) for path in runs.listed())
    assert sorted(path.stem for path in (REPORT / pages.PAGES_DIR).glob("*.md")) == names
    index = (REPORT / "README.md").read_text()
    assert [name for name in names if f"]({pages.PAGES_DIR}/{name}.md)" not in index] == []


def test_every_published_capacity_run_has_its_capacity_page_and_a_place_in_the_index() -> None:
    """Each make capacity run listed, the verdict's and the others (another CPU placement), has a
    page with what its searches found, and the index's capacity section names it."""
    searched = [path for path in runs.listed() if (path / "capacity.json").is_file()]
    assert len(searched) >= 2, "the committed runs hold capacity runs under two placements"
    index = (REPORT / "README.md").read_text()
    capacity = index[index.index("## Capacity and cost"):index.index("## Memory")]
    for path in searched:
        assert "## What the searches found" in (REPORT / pages.PAGES_DIR / f"{pages.page_name(path)}.md").read_text()
        assert f"({pages.PAGES_DIR}/{pages.page_name(path)}.md)" in capacity


def test_every_listed_folder_gets_a_page_and_a_folder_no_longer_listed_none(tmp_path: Path) -> None:
    """A run and two experiments' folders kept beside the runs (run folders too): a page each, the
    run's sections and charts; once the listing drops a folder, its page goes at the next build."""
    results = tmp_path / "results"
    run_dir = shutil.copytree(FIXTURES / "runs" / RUN_ID, results / "runs" / RUN_ID)
    levels.summarize_run(run_dir)
    for kept in ("before-after/before", "carriers/parallelism-1"):
        shutil.copytree(run_dir, results / kept)
    listing = results / "published.csv"
    rows = (f"runs/{RUN_ID},article,the run\nbefore-after/before,article,before\n"
            "carriers/parallelism-1,article,carriers\n")
    listing.write_text("run,profile,why\n" + rows)
    out = tmp_path / "report"
    index = report.build([run_dir], out, beside=runs.kept_beside(results / "runs", listing)).read_text()
    assert sorted(path.name for path in (out / pages.PAGES_DIR).iterdir()) == sorted(
        [f"{RUN_ID}.md", "before.md", "parallelism-1.md"])  # folders outside results/ go by their names
    assert "[`before`](runs/before.md)" in index and "[`parallelism-1`](runs/parallelism-1.md)" in index
    page = (out / pages.PAGES_DIR / "parallelism-1.md").read_text()
    assert page.count("## Setup\n") == 1 and "## Charts\n" in page and "parallelism-1-timeline.png" in page
    listing.write_text("run,profile,why\n" + rows.replace("before-after/before,article,before\n", ""))
    report.build([run_dir], out, beside=runs.kept_beside(results / "runs", listing))
    assert sorted(path.name for path in (out / pages.PAGES_DIR).iterdir()) == [f"{RUN_ID}.md", "parallelism-1.md"]


def test_two_folders_of_one_page_name_are_refused(tmp_path: Path) -> None:
    shown = [runs.Run(tmp_path / place / "x", Manifest(), pd.DataFrame()) for place in ("a", "b")]
    with pytest.raises(UserError, match=r"would share a page runs/x\.md"):
        report.unique_pages(shown)


def test_the_committed_index_opens_on_the_verdict() -> None:
    index = (REPORT / "README.md").read_text().splitlines()
    first = index[:index.index(next(line for line in index if line.startswith("## ")))]
    assert len(index) <= INDEX_LINES  # what fits on the first screen: test_first_screen, in a browser
    assert first[0].startswith("# ") and first[2] == report.VERDICT_START
    header = next(line for line in first if line.startswith("| service"))
    assert header.count("|") - 1 <= 12 and "](#cold-vs-warm)" in header
    rows = [line for line in first if line.startswith("| go ")]
    assert rows and " of " not in rows[0]
    assert "start-up ms cold" in header and "start-up ms cold+AOT" in header  # make startup's newest record
    # the capacity passes under split, in requests/s and iterations/s
    assert "req/s (split)" in header and "it/s (split)" in header
    assert re.search(r"\|\s+[\d,]+ \[[\d,]+-[\d,]+\]\s+\|", rows[0])
    assert "| figures " in "\n".join(first)  # the runs each figure comes from, their commits and days


def test_a_rebuild_writes_the_same_bytes(tmp_path: Path) -> None:
    """Two builds of the fixture run, in two folders: every file alike, PNG charts included."""
    run_dir = shutil.copytree(FIXTURES / "runs" / RUN_ID, tmp_path / "runs" / RUN_ID)
    levels.summarize_run(run_dir)
    for out in ("one", "two"):
        report.build([run_dir], tmp_path / out)
    assert_same_files(tmp_path / "one", tmp_path / "two")


@pytest.mark.integration
@pytest.mark.untimed
def test_make_report_reproduces_the_committed_report() -> None:
    """`make report` on the committed runs writes the committed report byte for byte (built beside
    it, so that its links to the runs read alike)."""
    out = Path(tempfile.mkdtemp(prefix=".report-", dir=REPORT.parent))
    try:
        report.build(None, out)
        assert_same_files(REPORT, out)
    finally:
        shutil.rmtree(out)


@pytest.mark.integration
@pytest.mark.untimed
def test_every_committed_summary_rebuilds_from_the_files_git_carries(tmp_path: Path) -> None:
    """`make summarize FORCE=1` on a copy of what git tracks of each folder results/published.csv
    lists (what a fresh clone holds: histograms, no raw sample) writes its committed summaries
    byte for byte."""
    folders = sorted(path for path in runs.listed(runs.PUBLISHED_CSV) if (path / "levels").is_dir())
    assert folders, "results/published.csv names no folder with levels"
    carried = list(tracked())
    copies = [tmp_path / folder.relative_to(paths.ROOT) for folder in folders]
    for path in carried:
        if any(path.is_relative_to(folder.relative_to(paths.ROOT)) for folder in folders):
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(paths.ROOT / path, tmp_path / path)
    with ProcessPoolExecutor(os.cpu_count()) as pool:  # each folder's summaries are its own: the CPUs share them
        list(pool.map(functools.partial(levels.summarize_run, force=True), copies))
    for folder, copy in zip(folders, copies, strict=True):
        written = sorted(path.relative_to(copy) for path in copy.rglob("summary.*"))
        assert written == sorted(path.relative_to(folder) for path in folder.rglob("summary.*")), folder
        _, mismatch, errors = filecmp.cmpfiles(folder, copy, [str(name) for name in written], shallow=False)
        assert (mismatch, errors) == ([], []), folder


def assert_same_files(a: Path, b: Path) -> None:
    """The same files in `a` and `b`, with the same bytes (the notebook's HTML, not in git, apart)."""
    names = sorted(path.relative_to(a) for path in a.rglob("*") if path.is_file() and path.name != "results.html")
    assert names == sorted(path.relative_to(b) for path in b.rglob("*") if path.is_file())
    _, mismatch, errors = filecmp.cmpfiles(a, b, [str(name) for name in names], shallow=False)
    assert (mismatch, errors) == ([], [])
