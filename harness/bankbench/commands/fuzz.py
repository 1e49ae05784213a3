"""`bankbench fuzz`: property-based tests of api/openapi.yaml against each service (schemathesis).

Prints one line per service with its count of generated requests and failures, then
`fuzz: N passed, N failed`; exits 1 if any service failed. The full output of each run is in
.run/test-reports/fuzz-<service>.log.
"""

from __future__ import annotations

import argparse
import os

from bankbench import paths, registry
from bankbench.checks import fuzz


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("fuzz", help="property-based API tests (schemathesis) against each service")
    p.add_argument("--service", default=",".join(registry.names()), help="comma list")
    p.add_argument("--seed", default=os.environ.get("SCHEMATHESIS_SEED"),
                   help=f"a number, or 'random' (default: $SCHEMATHESIS_SEED, else {fuzz.DEFAULT_SEED})")
    p.add_argument("--examples", type=int, default=fuzz.DEFAULT_EXAMPLES,
                   help="examples per operation and phase")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    seed = fuzz.seed(args.seed)
    logs = paths.STATE / "test-reports"
    logs.mkdir(parents=True, exist_ok=True)
    print(f"schemathesis, seed {seed} (SCHEMATHESIS_SEED=random for another), "
          f"{args.examples} examples per operation and phase")
    results = fuzz.run(args.service.split(","), seed, args.examples, logs)
    for r in results:
        print(f"fuzz {r.service}: {r.generated} generated requests, {r.failures} failures, "
              f"{'ok' if r.ok else 'FAILED'} (log {r.log.relative_to(paths.ROOT)})")
    failed = sum(not r.ok for r in results)
    print(f"fuzz: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0
