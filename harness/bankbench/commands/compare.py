"""`bankbench compare RUN_A RUN_B` (make compare): two runs, level by level.

Both runs summarized, level by level: each figure with its 95 % interval, the ratio B/A with its
interval and whether the difference is significant (bankbench.analyse.repeats.differences): the
question after changing one knob.

See docs/method.md#two-runs."""

import argparse
from pathlib import Path

from bankbench.publish import terminal
from bankbench.results import runs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", type=Path, metavar="RUN_A", help="the run to compare against")
    parser.add_argument("b", type=Path, metavar="RUN_B", help="the run compared with it")


def main(args: argparse.Namespace) -> int:
    print(terminal.two_runs(runs.load_run(args.a), runs.load_run(args.b)))
    return 0
