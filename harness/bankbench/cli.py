"""Command line: `python -m bankbench <verb> ...`, one module per verb in bankbench.commands."""

from __future__ import annotations

import argparse
import importlib
import sys

from bankbench.errors import UserError

VERBS = ("db", "services", "plan", "verify", "bench", "quick", "fuzz", "connections", "summarize", "compare",
         "report")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bankbench", description=__doc__)
    sub = parser.add_subparsers(dest="verb", required=True)
    for verb in VERBS:
        importlib.import_module(f"bankbench.commands.{verb}").add_parser(sub)
    args = parser.parse_args(argv)
    try:
        return args.run(args) or 0
    except UserError as err:
        print(f"bankbench {args.verb}: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"bankbench {args.verb}: interrupted", file=sys.stderr)
        return 130
