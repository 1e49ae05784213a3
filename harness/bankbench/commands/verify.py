"""`bankbench verify`: prove that the services do the same database work (make verify).

Writes the result as JSON with --out; `bench` and `quick` run the same check first.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from bankbench import registry
from bankbench.checks import verify


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="statements, calls and transactions per request, compared")
    p.add_argument("--service", default=",".join(registry.names()), help="comma list")
    p.add_argument("--out", type=Path, help="write the result here as JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory() as work:
        verify.run(args.service.split(","), Path(work), args.out)
    return 0
