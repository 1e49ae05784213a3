"""The end of `make bench` on this machine, and `make publish`.

A run of `make bench` on this machine, ended with its own verdict (the report's first table of
it), its page and that verdict written into <run>/report/, which git ignores as it ignores every
run results/published.csv does not list; and `make publish`, which lists a run there.

See docs/benchmarks.md.
"""

import csv
import os
import textwrap
from pathlib import Path

import pandas as pd
from tabulate import tabulate

from bankbench import estimates, paths
from bankbench.analyse import findings, repeats
from bankbench.analyse.repeats import P99
from bankbench.errors import UserError
from bankbench.publish import pages, verdict_words
from bankbench.publish.formatting import figure_text, number, significant, whole
from bankbench.results import runs, summaries
from bankbench.results.runs import Run

WIDTH = 100  # the terminal's columns the verdict fits in
GITIGNORE = paths.ROOT / ".gitignore"
KEPT = "!results/runs/{name}/"  # the .gitignore line that keeps a published run under results/runs/ in git
REPORT_DIR = "report"  # a run's own report under its folder: README.md (the verdict) and its page

# What the verdict shows of each level, as the first table has it: summary.csv column -> (header, format)
FIGURES = {P99: ("p99 ms", whole),
           "efficiency.service_cpu_ms_per_request": ("CPU ms/request", significant),
           "resources.service_rss_max_mb": ("peak RSS MB", number)}


def cells(summary: pd.DataFrame, column: str) -> dict[tuple, findings.Cell]:
    """`column` per level (service, users, pool) as the first table's cells, with n of N."""
    figures = repeats.level_figures(summary, column)
    return {key: findings.Cell(figures.get(key, findings.NONE), *findings.n_of_n(row))
            for row in repeats.aggregate_repeats(summary, []).to_dict("records")
            for key in [tuple(row[k] for k in summaries.LEVEL_KEYS)]}


def verdict(run: Run) -> str:
    """This machine's verdict on `run`: a line per service and level, and who was ahead."""
    summary = run.summary
    by_column = {column: cells(summary, column) for column in FIGURES}
    told = [_legend(list(by_column[P99].values())), _ahead(summary, by_column[P99])]
    return "\n".join([
        f"This machine's verdict on run {run.id} (CPU placement {run.placement}):",
        _table(summary, by_column),
        *(line for text in told for line in textwrap.wrap(text, WIDTH, break_on_hyphens=False)),
    ])


def _table(summary: pd.DataFrame, by_column: dict[str, dict[tuple, findings.Cell]]) -> str:
    """A row per level, its n of N in fewer words where the table would be wider than WIDTH."""
    keys = sorted(by_column[P99], key=lambda key: (key[1], key[2], summaries.service_order(key[0])))
    pooled = "pool" in repeats.row_keys(summary)
    headers = [summaries.load_header(summary), *(["pool"] if pooled else []), "service",
               *(header for header, _ in FIGURES.values())]
    figures = [[f"{key[1]:,}", *([str(key[2])] if pooled else []), key[0],
                *(figure_text(by_column[column][key].figure, fmt)
                  for column, (_, fmt) in FIGURES.items())] for key in keys]
    align = ["right"] * (1 + pooled) + ["left"] + ["right"] * len(FIGURES) + ["left"]
    for words, header in ((True, ""), (False, "repeats\ncounted")):
        rows = [[*row, _counted(by_column[P99][key], words)] for row, key in zip(figures, keys, strict=True)]
        table = tabulate(rows, [*headers, header], disable_numparse=True, colalign=align)
        if max(map(len, table.splitlines())) <= WIDTH:
            break
    return table


def _counted(cell: findings.Cell, words: bool) -> str:
    return f"{cell.n} of {cell.of}" + (f" repeat{'s' if cell.of > 1 else ''} counted" if words else "")


def _legend(p99: list[findings.Cell]) -> str:
    """What a figure and its brackets are over, as the run's levels have them."""
    over = sorted({cell.n for cell in p99 if cell.figure.source == estimates.REPEATS})
    brackets = [f"the range of its {n} repeats" if n == 3 else f"its 95 % interval over its {n} repeats"
                for n in over]
    if any(cell.figure.source == estimates.SECONDS for cell in p99):
        brackets.append(f"for a p99 over fewer than {estimates.MIN_REPEATS} repeats, its 95 % interval over the "
                        "seconds of each repeat")
    return ("Each figure is the median of the repeats that counted (money check passed, load generator held "
            "up)" + (f"; in brackets, {'; '.join(brackets)}" if brackets else "") + ". Figures of this machine "
            "alone: compare the services with each other.")


def _ahead(summary: pd.DataFrame, p99: dict[tuple, findings.Cell]) -> str:
    """Who had the lowest p99 at the largest load two services or more ran at the main pool."""
    pool = repeats.main_pool(summary)
    at_pool = {key: cell for key, cell in p99.items() if key[2] == pool}
    shared = [users for users in {key[1] for key in at_pool} if sum(key[1] == users for key in at_pool) > 1]
    if not shared:
        return ""
    users = max(shared)
    at_users = {service: cell for (service, u, _), cell in at_pool.items() if u == users}
    told = verdict_words.lead(at_users, "p99", high_is_best=False,
                              show=verdict_words.figure("ms", whole))
    pooled = f" (pool {pool})" if "pool" in repeats.row_keys(summary) else ""
    return f"At {users:,} {summaries.load_unit(summary)}{pooled}, {told}." if told else ""


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
