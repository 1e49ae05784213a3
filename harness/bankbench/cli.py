"""Command line: `python -m bankbench <verb> ...`.

Each verb is one module, which defines add_arguments(parser) and main(args). Only the chosen
verb's module is imported: the analysis modules take seconds to load (pandas, matplotlib).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from bankbench.errors import UserError

# verb -> (its module below bankbench, its one-line help), in the order of the data flow.
VERBS = {
    "db": ("commands.db", "start or stop a throwaway PostgreSQL with the schema loaded"),
    "services": ("commands.services", "list the services under test (services.yaml)"),
    "verify": ("checks.verify", "statements, calls and transactions per request, compared"),
    "fuzz": ("checks.fuzz", "property-based API tests (schemathesis) against each service"),
    "connections": ("checks.connections", "hold N slow keep-alive connections on each service"),
    "quick": ("checks.quick", "a one-minute wrk + pgbench figure per service"),
    "plan": ("commands.plan", "list the levels a benchmark would run"),
    "calibrate": ("commands.calibrate", "what JMeter drives on its CPUs for each load of a profile"),
    "bench": ("commands.bench", "run a benchmark profile, level by level"),
    "capacity": ("commands.capacity",
                 "per service, the highest rate that holds a p99 target, and the smallest heap there"),
    "pgwire": ("commands.pgwire", "what one request costs PostgreSQL, each service at one rate, captured"),
    "startup": ("commands.startup", "each service's time from its start to its first 200, cold and with an AOT cache"),
    "tune": ("commands.tune", "per service, at its capacity rate, the best pool and runtime settings"),
    "aws": ("commands.aws", "the benchmark on AWS ECS: up, push, bench, down, cost"),
    "summarize": ("commands.summarize",
                  "compute summary.json/summary.csv of runs and print the comparison"),
    "compare": ("commands.compare", "compare two summarized runs level by level"),
    "report": ("publish.report",
               "render the results report (Markdown, PNG charts, notebook as HTML)"),
}


def parser(argv: list[str]) -> argparse.ArgumentParser:
    """The command line, with the arguments of the verb `argv` names (the others listed only)."""
    root = argparse.ArgumentParser(prog="bankbench", description=__doc__.split("\n")[0])
    sub = root.add_subparsers(dest="verb", required=True)
    chosen = argv[0] if argv else None
    for verb, (module_name, summary) in VERBS.items():
        if verb != chosen:
            sub.add_parser(verb, help=summary)
            continue
        module = importlib.import_module(f"bankbench.{module_name}")
        verb_parser = sub.add_parser(verb, help=summary, description=module.__doc__)
        module.add_arguments(verb_parser)
        verb_parser.set_defaults(main=module.main)
    return root


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parser(argv).parse_args(argv)
    try:
        return args.main(args) or 0
    except UserError as err:
        print(f"bankbench {args.verb}: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"bankbench {args.verb}: interrupted", file=sys.stderr)
        return 130
