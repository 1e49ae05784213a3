"""The end of `make bench` on this machine, and `make publish`.

A run of `make bench` on this machine, ended with its own verdict (a table of its figures and one
of what differs at 95 %, no sentence), its page and that verdict written into <run>/report/,
which git ignores as it ignores every run results/published.csv does not list; and `make
publish`, which lists a run there.

See docs/benchmarks.md.
"""

import csv
import os
from pathlib import Path

from bankbench import paths
from bankbench.errors import UserError
from bankbench.publish import pages, verdict_tables
from bankbench.results import runs
from bankbench.results.runs import Run

GITIGNORE = paths.ROOT / ".gitignore"
KEPT = "!results/runs/{name}/"  # the .gitignore line that keeps a published run under results/runs/ in git
REPORT_DIR = "report"  # a run's own report under its folder: README.md (the verdict) and its page


def verdict(run: Run) -> str:
    """This machine's verdict on `run`: its header line, then verdict_tables' two tables."""
    return f"This machine's verdict on run {run.id} (CPU placement {run.placement})\n" + \
        verdict_tables.text(run.summary)


def ending(run: Run) -> str:
    """What `make bench` ends with: the verdict, then its page's path (both in <run>/report/)."""
    out_dir, told = run.path / REPORT_DIR, verdict(run)
    for owned in (pages.CHARTS_DIR, pages.PAGES_DIR):
        (out_dir / owned).mkdir(parents=True, exist_ok=True)
    page = pages.write(run, out_dir, runs.read_articles(), None, [])
    (out_dir / "README.md").write_text("\n\n".join([
        f"# Run `{run.id}` on this machine",
        f"```text\n{told}\n```",
        f"Every figure, chart and level: [its page]({pages.relative(page, out_dir)}). Not in the published "
        f"report (results/report/): `make publish RUN={_shown(run.path)} WHY=\"...\"` lists it there."]) + "\n")
    return f"{told}\nIts page, with every figure and chart:\n  {_shown(page)}"


def _shown(path: Path) -> str:
    """`path` relative to the current folder where it is under it, else as it is."""
    resolved = path.resolve()
    return os.path.relpath(resolved) if resolved.is_relative_to(Path.cwd()) else str(path)


def publish(run_dir: Path, why: str, listing: Path = runs.PUBLISHED_CSV, gitignore: Path = GITIGNORE) -> str:
    """Lists `run_dir` in `listing` with `why` it is kept and, for one under results/runs/, adds the
    .gitignore line that keeps it (`KEPT`); returns the git command that adds what changed."""
    run = runs.load_run(run_dir)  # refuses a folder that is not a summarized run
    folder = run_dir.resolve()
    if not folder.is_relative_to(paths.RESULTS):
        raise UserError(f"{run_dir} is not under {paths.RESULTS}: the report shows only folders kept there")
    if not why.strip():
        raise UserError('say why the run is kept: make publish RUN=<folder> WHY="..."')
    if folder in runs.listed(listing):
        raise UserError(f"{run_dir} is already in {listing.name}")
    with listing.open("a", newline="") as f:
        csv.writer(f, lineterminator="\n").writerow([folder.relative_to(paths.RESULTS).as_posix(), run.profile,
                                                     why.strip()])
    added = [listing, folder, paths.RESULTS / "report"]
    if folder.parent == paths.RUNS.resolve():
        lines = gitignore.read_text().splitlines()
        last = max(i for i, line in enumerate(lines) if line.startswith(KEPT.split("{")[0]))
        gitignore.write_text("\n".join([*lines[:last + 1], KEPT.format(name=folder.name), *lines[last + 1:]]) + "\n")
        added.insert(0, gitignore)
    return "git add " + " ".join(_shown(path) for path in added)
