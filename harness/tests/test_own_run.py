"""What `make bench` ends with (bankbench.publish.own_run), read off a committed run: this machine's
verdict as two tables, and `make publish`, which lists a run in the report and keeps it in git.
No process runs but `git check-ignore`."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess

import numpy as np
import pytest

from bankbench import paths
from bankbench.errors import UserError
from bankbench.publish import own_run, verdict_tables
from bankbench.publish.formatting import whole
from bankbench.results import runs

# The README's make bench, in results/published.csv: 3 services x 3 users levels x 3 repeats.
LOCAL = paths.RESULTS / "runs" / "20261127T051714Z-native-local"
LAST_KEPT = list(runs.listed())[-1]  # the last row of results/published.csv, a run under results/runs/


@pytest.fixture(scope="module")
def local() -> runs.Run:
    return runs.load_run(LOCAL)


def test_whole_numbers_print_whole() -> None:
    assert [whole(v) for v in (4.0, 126.0, 1234.0, 4.5, 65.01, np.nan)] == \
        ["4", "126", "1,234", "4.50", "65.0", "-"]


def test_the_verdict_is_two_tables_that_fit_a_terminal(local: runs.Run) -> None:
    text = own_run.verdict(local)
    lines = text.splitlines()
    assert max(map(len, lines)) <= verdict_tables.WIDTH, text
    assert not re.search(r"\b\d+\.00\b(?!\])", "\n".join(lines[:12])), text  # whole milliseconds print whole
    rows = [line for line in lines if re.match(r"\s+[\d,]+\s+(go|java|java-virtual)\s", line)]
    assert len(rows) == 9 and all(row.endswith("3 of 3 repeats counted") for row in rows), text
    assert re.match(r"\s+2,000\s+go\s+126 \[123-168\]\s", rows[6]), rows[6]  # p99 of the README's 2,000 users
    p99 = r"\s+[\d,]+\s+\S+\s+[\d,]+( \[[\d,]+-[\d,]+\])?\s{2}"  # whole ms, its interval's bounds too
    assert all(re.match(p99, row) for row in rows), text
    differs = [line.split() for line in lines if re.match(r"\s+[\d,]+\s+(p99|CPU|peak)", line)]
    assert len(differs) == 3 * 3 * 2  # each level, figure and service but the lowest
    assert ["2,000", "p99", "ms", "go", "java", "6.03", "[4.16-8.74]×", "yes"] in differs, text


def test_one_repeat_tells_no_difference(local: runs.Run) -> None:
    """A smoke-like run: one repeat of one level per service; its p99 interval over seconds."""
    summary = local.summary
    one = dataclasses.replace(local, summary=summary[(summary["users"] == 100) & (summary["repeat"] == 1)])
    text = own_run.verdict(one)
    assert max(map(len, text.splitlines())) <= verdict_tables.WIDTH, text
    assert text.count("1 of 1 repeat counted") == 3 and text.count("untold: no interval") == 4, text
    assert "yes" not in text.split("What differs")[1], text


def test_publish_lists_the_run_and_keeps_it_in_git(tmp_path) -> None:
    """The listing and .gitignore without the last run kept, then published again: as they were
    (its row now the listing's last)."""
    listing, gitignore = tmp_path / "published.csv", tmp_path / ".gitignore"
    name = f"runs/{LAST_KEPT.name}"
    rows = runs.PUBLISHED_CSV.read_text().splitlines(keepends=True)
    (row,) = [line for line in rows if line.startswith(f"{name},")]
    listing.write_text("".join(line for line in rows if line != row))
    kept = own_run.KEPT.format(name=LAST_KEPT.name)
    gitignore.write_text(own_run.GITIGNORE.read_text().replace(f"{kept}\n", ""))
    why = row.split(",", 2)[2].strip().strip('"')
    told = own_run.publish(LAST_KEPT, why, listing, gitignore)
    assert listing.read_text().splitlines(keepends=True) == [line for line in rows if line != row] + [row]
    assert gitignore.read_text() == own_run.GITIGNORE.read_text()
    assert told.startswith("git add ") and told.endswith("results/report") and str(listing) in told


def test_publish_refuses_what_it_cannot_list(tmp_path) -> None:
    with pytest.raises(UserError, match=r"already in published\.csv"):
        own_run.publish(LOCAL, "again", runs.PUBLISHED_CSV, tmp_path / ".gitignore")
    listing = tmp_path / "published.csv"
    listing.write_text("run,profile,why\n")
    with pytest.raises(UserError, match="say why"):
        own_run.publish(LOCAL, " ", listing, tmp_path / ".gitignore")
    elsewhere = shutil.copytree(LOCAL, tmp_path / LOCAL.name, ignore=shutil.ignore_patterns("levels"))
    with pytest.raises(UserError, match="not under"):
        own_run.publish(elsewhere, "why", listing, tmp_path / ".gitignore")


@pytest.mark.skipif(not (paths.ROOT / ".git").exists(), reason="not a git checkout")
def test_git_ignores_a_new_run_and_its_page_not_a_published_run() -> None:
    """Every run results/published.csv lists under results/runs/ is kept by a line of .gitignore,
    and no other run: a run of make bench, and the page beside any run, stay out of git status."""
    published = [path for path in runs.listed() if path.parent == paths.RESULTS / "runs"]
    assert published
    new = paths.RESULTS / "runs" / "20991231T000000Z-native-smoke"
    expected = {**{path / "summary.csv": False for path in published}, new / "summary.csv": True,
                new / own_run.REPORT_DIR / "README.md": True, LOCAL / own_run.REPORT_DIR / "README.md": True}
    asked = {path.relative_to(paths.ROOT).as_posix(): ignored for path, ignored in expected.items()}
    out = subprocess.run(["git", "check-ignore", "--no-index", "--stdin"], cwd=paths.ROOT, capture_output=True,
                         text=True, input="\n".join(asked) + "\n")
    found = set(out.stdout.splitlines())
    assert {path: path in found for path in asked} == asked
