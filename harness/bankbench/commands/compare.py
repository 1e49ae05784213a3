"""`bankbench compare RUN_A RUN_B` (make compare A= B=): per service and level, both runs'
figures, the ratio B/A with its 95 % interval, and whether the difference is significant."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Registers the `compare` verb."""
    parser = subparsers.add_parser("compare", help="compare two summarized runs level by level",
                                   description=__doc__)
    parser.add_argument("a", type=Path, metavar="RUN_A", help="the run to compare against")
    parser.add_argument("b", type=Path, metavar="RUN_B", help="the run compared with it")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Prints the comparison table."""
    # Imported here: pandas and scipy take seconds to load, and cli.py imports every verb's module.
    from bankbench.analyse import compare, runs

    print(compare.table(runs.load_run(args.a), runs.load_run(args.b)))
    return 0
