"""Command line: `python -m awsbench up|push|bench|down|cost` (the make targets aws-*)."""

from __future__ import annotations

import argparse
import sys

from awsbench import bench, push, stack
from bankbench.errors import UserError

PLAN_OVERRIDES = ("users", "pool", "repeat", "duration", "scenario", "think_ms")


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
    b.add_argument("--service", default="go,java,java-virtual",
                   help="go, java, java-virtual or a comma list of them (default: all three)")
    b.add_argument("--profile", default="local", help="a profile of jmeter/profiles.toml")
    for name in PLAN_OVERRIDES:
        b.add_argument(f"--{name.replace('_', '-')}", help="as for `make bench`")
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
            bench.bench(args.service, args.profile, {name: getattr(args, name) for name in PLAN_OVERRIDES})
        else:
            stack.down()
    except UserError as err:
        print(f"awsbench {args.verb}: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"awsbench {args.verb}: interrupted", file=sys.stderr)
        return 130
    return 0
