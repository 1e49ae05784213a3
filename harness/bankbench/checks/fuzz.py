"""`make fuzz`: the API's property-based tests (schemathesis) against each service.

Schemathesis against each service on a fresh database, every check with valid and invalid data in
every phase, stateful included; its settings and hooks (what JSON Schema cannot state) are in
contract/fuzz/. A run replays from its seed, printed.

See docs/api.md#the-contract-suite."""

import argparse
import os
import random
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from bankbench import paths, registry
from bankbench.bank import processes
from bankbench.errors import UserError
from bankbench.machine.postgres import Cluster

CONFIG = paths.ROOT / "contract" / "fuzz" / "schemathesis.toml"
DEFAULT_SEED = 14  # fixed: CI replays the same cases (SCHEMATHESIS_SEED=random draws new ones)
DEFAULT_EXAMPLES = 150  # per operation and phase: ~1,500 requests per service, ~30 s each here
TIMEOUT_S = 600  # one service's run; schemathesis itself has no overall time limit


@dataclass(frozen=True)
class Result:
    service: str
    generated: int
    failures: int
    ok: bool
    log: Path


def seed(value: str | None) -> int:
    """The seed a run uses: `value` as a number, a new one for "random", else the default."""
    if not value:
        return DEFAULT_SEED
    if value == "random":
        return random.randrange(2**32)
    if not value.isdigit():
        raise UserError(f"seed {value!r}: want a number or 'random'")
    return int(value)


def _one(name: str, cluster: Cluster, seed: int, examples: int, logs: Path) -> Result:
    cluster.reset()
    log = logs / f"fuzz-{name}.log"
    with processes.local_service(name, 10, cluster=cluster, log=logs / f"fuzz-{name}-service.log") as proc:
        cmd = [str(Path(sys.executable).parent / "st"), "--config-file", str(CONFIG), "--no-color",
               "run", str(paths.OPENAPI), "--url", proc.url, "--checks", "all",
               "--max-examples", str(examples), "--seed", str(seed)]
        try:  # in the repository: the paths in the config are relative to it
            out = subprocess.run(cmd, cwd=paths.ROOT, capture_output=True, text=True,
                                 timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise UserError(f"schemathesis against {name} took over {TIMEOUT_S} s") from None
    log.write_text(out.stdout + out.stderr)
    return parse(name, out.stdout, out.returncode, log)


def parse(name: str, output: str, returncode: int, log: Path) -> Result:
    """Reads the counts off schemathesis's summary ("1013 generated, 2 found 2 unique failures")."""
    generated = re.search(r"^\s*(\d+) generated", output, re.MULTILINE)
    failures = re.search(r"(\d+) unique failures?", output)
    return Result(name, int(generated.group(1)) if generated else 0,
                  int(failures.group(1)) if failures else 0, returncode == 0 and generated is not None,
                  log)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--service", default=",".join(registry.names()), help="comma list")
    p.add_argument("--seed", default=os.environ.get("SCHEMATHESIS_SEED"),
                   help=f"a number, or 'random' (default: $SCHEMATHESIS_SEED, else {DEFAULT_SEED})")
    p.add_argument("--examples", type=int, default=DEFAULT_EXAMPLES,
                   help="examples per operation and phase")


def main(args: argparse.Namespace) -> int:
    chosen = seed(args.seed)
    logs = paths.STATE / "test-reports"
    logs.mkdir(parents=True, exist_ok=True)
    print(f"schemathesis, seed {chosen} (SCHEMATHESIS_SEED=random for another), "
          f"{args.examples} examples per operation and phase")
    with Cluster.create() as cluster:
        results = [_one(name, cluster, chosen, args.examples, logs)
                   for name in args.service.split(",")]
    for r in results:
        print(f"fuzz {r.service}: {r.generated} generated requests, {r.failures} failures, "
              f"{'ok' if r.ok else 'FAILED'} (log {r.log.relative_to(paths.ROOT)})")
    failed = sum(not r.ok for r in results)
    print(f"fuzz: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0
