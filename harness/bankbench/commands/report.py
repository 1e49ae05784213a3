"""`bankbench report [--runs DIR ...] [--out DIR]`: renders results/report/ (README.md, charts, results.html)."""

from __future__ import annotations

import argparse
from pathlib import Path

from bankbench import paths

DEFAULT_OUT = paths.ROOT / "results" / "report"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Registers the `report` verb."""
    parser = subparsers.add_parser(
        "report", help="render the results report (Markdown, PNG charts, notebook as HTML)",
        description=__doc__,
    )
    parser.add_argument("--runs", nargs="+", type=Path, metavar="DIR",
                        help="run folders (default: the latest run of each profile under results/runs/)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, metavar="DIR",
                        help="report folder (default: results/report/)")
    parser.add_argument("--no-notebook", dest="notebook", action="store_false",
                        help="do not execute the notebook (no results.html): faster")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Builds the report and says where it is."""
    # Imported here: pandas and matplotlib take seconds to load, and cli.py imports every verb's module.
    from bankbench.publish import report

    readme = report.build(args.runs, args.out, execute_notebook=args.notebook)
    print(f"report: {readme}" + (f" and {args.out / 'results.html'}" if args.notebook else ""))
    return 0
