"""Command line: `python -m awsbench up|push|bench|down|cost` (the make targets aws-*)."""

from __future__ import annotations

import argparse
import subprocess
import sys

from bankbench.run.aws import levels, push, stack
from bankbench.run.aws.env import Aws
from bankbench.commands.bench import add_bench_arguments, run_in
from bankbench.errors import UserError


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="awsbench", description="bankbench on AWS ECS")
    sub = p.add_subparsers(dest="verb", required=True)
    for verb in ("up", "cost"):
        v = sub.add_parser(verb, help="create the stack" if verb == "up" else "print the stack's cost per hour")
        v.add_argument("--hours", type=float, default=8, help="scale the hosts to zero after this long")
        if verb == "up":
            v.add_argument("--yes", action="store_true", help="do not ask before creating")
    sub.add_parser("push", help="build the images and push them to ECR")
    b = sub.add_parser("bench", help="run a profile on the stack, results into results/runs/")
    add_bench_arguments(b)  # the knobs of `make bench`, one list (Makefile: BENCH_KNOBS)
    sub.add_parser("down", help="stop every task and destroy the stack")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.verb == "up":
            stack.up(args.hours, args.yes)
        elif args.verb == "cost":
            stack.cost(args.hours)
            stack.PLAN_FILE.unlink(missing_ok=True)
        elif args.verb == "push":
            push.push()
        elif args.verb == "bench":
            bench(args)
        else:
            stack.down()
    except UserError as err:
        print(f"awsbench {args.verb}: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"awsbench {args.verb}: interrupted", file=sys.stderr)
        return 130
    return 0


def bench(args: argparse.Namespace) -> None:
    """`make bench`'s run, in the `aws` environment; then its figures, as `make bench` computes them."""
    levels.refuse_unsupported(args)
    run_dir = run_in(Aws, args)
    subprocess.run([sys.executable, "-m", "bankbench", "summarize", str(run_dir)], check=True)
