"""The committed report (results/report/): the runs it shows are those results/published.csv
lists, a page each and no other; its index opens on the verdict within a screen and fits in 400
lines; and a rebuild from the same runs writes the same bytes."""

from __future__ import annotations

import filecmp
import json
import shutil
import tempfile
from pathlib import Path

import pytest

from bankbench import paths
from bankbench.analyse import runs, summaries
from bankbench.publish import report

from test_analysis import FIXTURES, RUN_ID

REPORT = paths.ROOT / "results" / "report"
FIRST_SCREEN_LINES, INDEX_LINES = 60, 400


def made(root: Path, name: str, profile: str) -> Path:
    """A run folder holding only its manifest (enough to be found)."""
    (root / name).mkdir(parents=True)
    (root / name / "manifest.json").write_text(json.dumps({"run_id": name, "profile": profile, "env": "native"}))
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


def test_the_committed_report_has_a_page_per_published_run_and_no_other() -> None:
    assert sorted(path.stem for path in (REPORT / "runs").glob("*.md")) == sorted(
        path.name for path in runs.published())


def test_the_committed_index_opens_on_the_verdict() -> None:
    index = (REPORT / "README.md").read_text().splitlines()
    first = index[:index.index(next(line for line in index if line.startswith("## ")))]
    assert len(first) <= FIRST_SCREEN_LINES and len(index) <= INDEX_LINES
    assert first[0].startswith("# ") and first[2].startswith("Warm (a service in steady state)")
    header = next(line for line in first if line.startswith("| service"))
    assert header.count("|") - 1 <= 8 and "](#cold-vs-warm)" in header
    rows = [line for line in first if line.startswith("| go ")]
    assert rows and " of " in rows[0] and "≥" in rows[0]  # n of N; the load generator's ceiling


def test_a_rebuild_writes_the_same_bytes(tmp_path: Path) -> None:
    """Two builds of the fixture run, in two folders: every file alike, PNG charts included."""
    run_dir = shutil.copytree(FIXTURES / "runs" / RUN_ID, tmp_path / "runs" / RUN_ID)
    summaries.summarize_run(run_dir)
    for out in ("one", "two"):
        report.build([run_dir], tmp_path / out)
    assert_same_files(tmp_path / "one", tmp_path / "two")


@pytest.mark.integration
def test_make_report_reproduces_the_committed_report() -> None:
    """`make report` on the committed runs writes the committed report byte for byte (built beside
    it, so that its links to the runs read alike)."""
    out = Path(tempfile.mkdtemp(prefix=".report-", dir=REPORT.parent))
    try:
        report.build(None, out)
        assert_same_files(REPORT, out)
    finally:
        shutil.rmtree(out)


def assert_same_files(a: Path, b: Path) -> None:
    """The same files in `a` and `b`, with the same bytes (the notebook's HTML, not in git, apart)."""
    names = sorted(path.relative_to(a) for path in a.rglob("*") if path.is_file() and path.name != "results.html")
    assert names == sorted(path.relative_to(b) for path in b.rglob("*") if path.is_file())
    _, mismatch, errors = filecmp.cmpfiles(a, b, [str(name) for name in names], shallow=False)
    assert (mismatch, errors) == ([], [])
