"""`bankbench aws up|push|bench|down|cost`: the benchmark on AWS ECS (the make targets aws-*).

The stack is infra/'s Terraform; `bench` is `make bench`'s run in the `aws` environment
(bankbench.run.environments.aws), with the same knobs, then its figures as `make bench` computes
them.

See docs/aws.md and infra/README.md.
"""

import argparse

from bankbench.commands.bench import add_bench_arguments, run_in
from bankbench.commands.summarize import summarize
from bankbench.run.environments.aws import push, stack, workload
from bankbench.run.environments.aws.environment import Aws


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", required=True)
    up = sub.add_parser("up", help="create the stack")
    for v in (up, sub.add_parser("cost", help="print the stack's cost per hour")):
        v.add_argument("--hours", type=float, default=8,
                       help="scale the hosts to zero after this long")
    up.add_argument("--yes", action="store_true", help="do not ask before creating")
    sub.add_parser("push", help="build the images and push them to ECR")
    b = sub.add_parser("bench", help="run a profile on the stack, results into results/runs/")
    add_bench_arguments(b)  # the knobs of `make bench`, one list
    sub.add_parser("down", help="stop every task and destroy the stack")


def main(args: argparse.Namespace) -> int:
    if args.action == "up":
        stack.up(args.hours, args.yes)
    elif args.action == "cost":
        stack.cost(args.hours)
        stack.PLAN_FILE.unlink(missing_ok=True)
    elif args.action == "push":
        push.push()
    elif args.action == "bench":
        workload.refuse_unsupported(args)
        summarize(run_in(Aws, args))
    else:
        stack.down()
    return 0
