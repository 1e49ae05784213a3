"""Command line: `python -m bankbench <verb> ...`.

Each verb is one module (add_arguments, main), imported only when chosen: pandas is slow to load.

See harness/README.md."""

import argparse
import importlib
import os
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
    "pg-spread": ("commands.pgspread", "PostgreSQL's CPU per statement at one rate over few or many connections"),
    "startup": ("commands.startup", "each service's time from its start to its first 200, cold and with an AOT cache"),
    "tune": ("commands.tune", "per service, at its capacity rate, the best pool and runtime settings"),
    "soak": ("commands.soak", "each warm service for MINUTES below capacity: p99 per minute, memory and pool trends"),
    "aws": ("commands.aws", "the benchmark on AWS ECS: up, push, bench, down, cost"),
    "migrate": ("commands.migrate", "bring run folders written before to this harness's schema versions"),
    "summarize": ("commands.summarize", "compute summary.json/summary.csv of runs and print the comparison"),
    "compare": ("commands.compare", "compare two summarized runs level by level"),
    "report": ("publish.report", "render the results report (Markdown, PNG charts, notebook as HTML)"),
    "screenshot": ("commands.screenshot",
                   "the report's first screen at 1280×800 in headless Chromium, checked, as PNGs"),
}


# Makefile knob -> the option it sets in every verb with it ("capacity --budget-min": that verb's
# only; NAME=value: the flag if NAME is that value); read only under FROM_MAKE (docs/benchmarks.md).
FROM_MAKE = "BANKBENCH_FROM_MAKE"
SETTINGS = {
    "PROFILE": "--profile", "SERVICE": "--service", "USERS": "--users", "RATE": "--rate", "POOL": "--pool",
    "DURATION": "--duration", "WARMUP": "--warmup", "REPEAT": "--repeat", "SCENARIO": "--scenario",
    "THINK_MS": "--think-ms", "START": "--start", "TUNED=1": "--tuned", "TUNED=both": "capacity --with-tuned",
    "ENV": "--env", "CHAOS": "--chaos",
    "PG_MAX_CONNECTIONS": "--pg-max-connections", "PG_DURABLE=off": "--non-durable", "PROFILE_CPU=1": "--profile-cpu",
    "CPU_PLACEMENT": "--cpu-placement", "P99_MS": "--p99-ms", "CAPACITY_MIN": "capacity --budget-min",
    "TUNE_MIN": "tune --budget-min", "KNOBS": "tune --knobs", "MINUTES": "soak --minutes",
    "STARTS": "--starts", "FORCE=1": "--force", "DB_PORT": "--port", "DB_MAX_CONNECTIONS": "--max-connections",
    "AWS_HOURS": "--hours", "YES=1": "--yes",
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
        if os.environ.get(FROM_MAKE) == "1":
            from_make(verb_parser, verb)
    return root


def from_make(p: argparse.ArgumentParser, verb: str) -> None:
    """Sets the defaults of the options of `p` (and of its own verbs': aws up|bench ...) that SETTINGS names."""
    for action in p._actions:  # argparse lists a parser's options nowhere public
        for sub in action.choices.values() if isinstance(action.choices, dict) else ():
            from_make(sub, verb)
        for setting, option in SETTINGS.items():
            (name, _, flag), (*verbs, option) = setting.partition("="), option.split()
            if (value := os.environ.get(name)) and option in action.option_strings and verb in (verbs or [verb]):
                if action.choices and not flag and value not in action.choices:
                    p.error(f"{name}={value}: not one of {', '.join(action.choices)}")
                action.default = value == flag if flag else value  # a str default: converted by its type


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
