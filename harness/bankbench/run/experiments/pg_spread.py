"""`make pg-spread`: PostgreSQL alone, the services' statements over N connections.

At make pgwire's rate of the services' statements (pgbench, checks.quick's scripts) over a few N
connections: what spreading the work over more backends costs its CPU per statement. It tests
docs/request-cost.md's cause of platform Java's extra PostgreSQL CPU: pgbench's clients, in one
thread, take the rate's slots in turn as Tomcat's idle threads do, each with its HikariCP
connection. pgbench's latency counts from each scheduled start.

See docs/request-cost.md#the-cause-platform-javas-statements-go-to-every-backend-in-turn."""

import re
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from bankbench.checks.quick import pgbench_scripts, pgbench_tool, reseed
from bankbench.errors import UserError
from bankbench.load import profiles
from bankbench.machine import placement
from bankbench.machine.postgres import Cluster
from bankbench.run.experiments import pg_capture

# The statements of one iteration of the rematch scenario (docs/benchmarks.md).
MIX = {"create_client": 2, "balance": 4, "transfer": 1}
SETTLE_S = 5  # after pgbench starts and before it ends: its connections are open, its rate steady


def rate() -> int:
    """Statements/s: make pgwire's iterations/s (its profile) times the statements of one."""
    return profiles.load("pgwire").users[0] * sum(MIX.values())


def run(clients: Sequence[int], rounds: int, seconds: int, workdir: Path,
        progress: Callable[[dict], None]) -> list[dict]:
    """A row per round and client count: pgbench's figures and PostgreSQL's (pg_capture.sampled)."""
    tool = pgbench_tool()
    split = placement.plan(placement.SPLIT)
    rows = []
    with Cluster.create(cpus=split.postgres_cpus) as cluster:
        reseed(cluster)
        scripts = pgbench_scripts(workdir)
        command = placement.taskset(split.loadgen, [
            str(tool), "-n", "-M", "prepared", "-j", "1", "-R", str(rate()), "-T", str(seconds),
            *(arg for name, weight in MIX.items() for arg in ("-f", f"{scripts[name]}@{weight}")),
            "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "postgres", "bank"])
        for round_ in range(rounds):  # a new order each round: the drift falls on all alike
            for n in [*clients[round_ % len(clients):], *clients[:round_ % len(clients)]]:
                rows.append({"round": round_ + 1, "clients": n,
                             **_probe([*command, "-c", str(n)], cluster.port, seconds)})
                progress(rows[-1])
    return rows


def _probe(command: list[str], port: int, seconds: int) -> dict:
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as pgbench:
        first = last = None  # a pgbench that ends early, refused or failing, is told at once
        if _runs_for(pgbench, SETTLE_S):
            first = pg_capture.sample(port)
            if _runs_for(pgbench, seconds - 2 * SETTLE_S):
                last = pg_capture.sample(port)
        try:
            out = pgbench.communicate(timeout=seconds + 60)[0]
        except subprocess.TimeoutExpired:
            pgbench.kill()
            raise
    figures = {name: float(found.group(1)) for name, pattern in
               (("statements_per_s", r"tps = ([\d.]+)"), ("latency_ms", r"latency average = ([\d.]+) ms"))
               if (found := re.search(pattern, out))}
    if pgbench.returncode or "statements_per_s" not in figures or not (first and last):
        raise UserError(f"pgbench failed: {out}")
    return {**figures, **pg_capture.sampled([first, last], (first.time, last.time), figures["statements_per_s"])}


def _runs_for(process: subprocess.Popen, seconds: float) -> bool:
    """Whether `process` is still running after `seconds`, which it ends early by exiting."""
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        return True
    return False
