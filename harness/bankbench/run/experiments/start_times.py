"""Start-up time: from a service process's start to its first 200.

The 200 is GET /health's, which asks the database; each service cold and, for a JVM, from its AOT
cache (bankbench.bank.aotcache).

See docs/benchmarks.md#start-up-time-make-startup."""

import contextlib
import time
from pathlib import Path

import httpx

from bankbench import config
from bankbench.bank import processes
from bankbench.errors import UserError
from bankbench.machine import placement
from bankbench.machine.postgres import Cluster, free_port
from bankbench.results.startup_record import AOT, COLD

POLL_S = 0.005
TIMEOUT_S = 90


def measure(services: list[str], starts: int, logs: Path) -> tuple[dict[str, dict[str, list[float]]], str]:
    """Per service and start kind, each process's seconds to its first 200; PostgreSQL's version."""
    plan = placement.plan(placement.default_mode())
    found: dict[str, dict[str, list[float]]] = {}
    with Cluster.create(cpus=plan.postgres_cpus) as cluster:
        for name in services:
            kinds = {COLD: processes.get(name, aot=False)}
            if processes.has_aot_cache(name):
                kinds[AOT] = processes.get(name, aot=True)  # trains the cache first where it must
            for kind, service in kinds.items():
                found.setdefault(name, {})[kind] = [
                    _time_to_first_200(service, cluster, plan.service_cpus,
                                       logs / f"{name}-{kind}-{i}.log") for i in range(starts)]
                print(f"startup {name} {kind}: {', '.join(f'{s:.3f}' for s in found[name][kind])} s",
                      flush=True)
        return found, cluster.psql("SHOW server_version").strip()


def _time_to_first_200(service: processes.Service, cluster: Cluster, cpus: tuple[int, ...],
                       log: Path) -> float:
    port = free_port()
    url = f"http://127.0.0.1:{port}/health"
    log.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    running = service.launch(port=port, pool=config.DEFAULT_POOL_SIZE, db_env=cluster.env(), log=log,
                             cpus=cpus)
    try:
        with httpx.Client(timeout=2) as client:
            while time.monotonic() - started < TIMEOUT_S:
                running.check_alive()
                with contextlib.suppress(httpx.HTTPError):
                    if client.get(url).status_code == 200:
                        return time.monotonic() - started
                time.sleep(POLL_S)
        raise UserError(f"{service.name} not healthy after {TIMEOUT_S} s; log {log}")
    finally:
        running.stop()
