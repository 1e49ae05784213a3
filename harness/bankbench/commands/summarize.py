"""`bankbench summarize [RUN ...]`: the one step that writes a run's summaries (of
`analysis.SUMMARY_VERSION`, which every reader requires); prints the side-by-side table and the
spread between repeats."""

from __future__ import annotations

import argparse
from pathlib import Path

from bankbench import paths
from bankbench.errors import UserError


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Registers the `summarize` verb."""
    parser = subparsers.add_parser(
        "summarize", help="compute summary.json/summary.csv of runs and print the comparison",
        description=__doc__,
    )
    parser.add_argument("runs", nargs="*", type=Path, metavar="RUN",
                        help="run folders (default: the latest one under results/runs/)")
    parser.add_argument("--force", action="store_true",
                        help="recompute every level, even where summary.json is newer than its inputs")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Summarizes each run and prints its comparison table."""
    # Imported here: pandas takes seconds to load, and cli.py imports every verb's module.
    from bankbench.analyse import analysis, runs

    run_dirs = args.runs or runs.find_runs()[-1:]
    if not run_dirs:
        raise UserError(f"no runs under {paths.RUNS}: run `make bench` first")
    for run_dir in run_dirs:
        summary = analysis.summarize_run(run_dir, force=args.force)
        print(f"{run_dir.name} ({len(summary)} levels): median [95 % interval]\n"
              f"{analysis.comparison_table(summary)}\n\nSpread between repeats\n"
              f"{analysis.spread_table(summary)}\n")
    return 0
