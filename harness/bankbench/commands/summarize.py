"""`bankbench summarize`: writes a run's summaries and prints its tables.

`bankbench summarize [RUN ...]`: the one step that writes a run's summaries (of
`summaries.SUMMARY_VERSION`, which every reader requires); prints the side-by-side table and the
spread between repeats, and for a series over CPU placements whether the verdict changes; then
this machine's verdict on each run (its figures and what differs at 95 %, two tables) and the
path of the run's page, written beside its files (bankbench.publish.own_run). With --verdict
(make bench), the verdict alone. A run folder of another schema version is refused: `make migrate`
brings it to this one (bankbench.results.versions).

See results/LAYOUT.md.
"""

import argparse
from pathlib import Path

from bankbench import paths
from bankbench.analyse import levels
from bankbench.errors import UserError
from bankbench.publish import own_run, tables, terminal
from bankbench.publish.formatting import markdown
from bankbench.results import files, runs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="*", type=Path, metavar="RUN",
                        help="run folders (default: the latest one under results/runs/, with "
                             "the other runs of its series)")
    parser.add_argument("--force", action="store_true",
                        help="recompute every level, even where summary.json is newer than its inputs")
    parser.add_argument("--verdict", action="store_true",
                        help="only this machine's verdict on each run (two tables) and the path of "
                             "the run's page in <run>/report/, not each run's tables (make bench)")


def main(args: argparse.Namespace) -> int:
    run_dirs = args.runs or runs.newest()
    if not run_dirs:
        raise UserError(f"no runs under {paths.RUNS}: run `make bench` first")
    summarize(run_dirs, args.force, args.verdict)
    return 0


def summarize(run_dirs: list[Path], force: bool = False, verdict: bool = False) -> None:
    """Summarizes the runs and prints their tables and series (with `verdict`, not), then each one's
    verdict: two tables, and the path of its page."""
    for run_dir in run_dirs:
        files.manifest(run_dir)  # refuses a run folder of another schema version before writing its summaries
        summary = levels.summarize_run(run_dir, force=force)
        if not verdict:
            print(f"{run_dir.name} ({len(summary)} levels): median [95 % interval]\n"
                  f"{terminal.comparison_table(summary)}\n\nSpread between repeats\n"
                  f"{terminal.spread_table(summary)}\n")
    loaded = [runs.load_run(run_dir) for run_dir in run_dirs]
    series, _ = runs.by_series(loaded)
    for name, group in series.items():
        print(f"Placement sensitivity, series {name}: median [95 % interval]\n"
              f"{markdown(tables.placement_figures(group))}\n\n{markdown(tables.placement_verdicts(group))}\n")
    print("\n\n".join(own_run.ending(run) for run in loaded))
