"""`bankbench services`: the registry's services, docker-compose.yml, one run by hand.

The services of services.yaml, docker-compose.yml written from them, and one of them run in the
foreground (make run-<name>).

See docs/api.md#adding-a-service and docs/configuration.md#running-by-hand."""

import argparse
import os

from bankbench import paths, registry
from bankbench.bank import processes
from bankbench.run.environments import composefile


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--write-compose", action="store_true",
                   help="write their blocks into docker-compose.yml (make compose-file)")
    p.add_argument("--exec", metavar="NAME",
                   help="become the service NAME, configured by the environment (make run-NAME)")


def main(args: argparse.Namespace) -> int:
    if args.exec:
        service = processes.get(args.exec)
        os.execve(service.command[0], service.command, {**os.environ, **dict(service.env)})
    if args.write_compose:
        print(f"{paths.COMPOSE.name}: {'written' if composefile.write() else 'already up to date'}")
    else:
        print(*registry.names())
    return 0
