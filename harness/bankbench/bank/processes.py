"""The services under test as processes; local_service(): one on a throwaway PostgreSQL cluster.

See harness/README.md and docs/configuration.md#running-by-hand."""

import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import httpx

from bankbench import config, paths, registry
from bankbench.bank import aotcache
from bankbench.errors import UserError
from bankbench.machine import jdk
from bankbench.machine.placement import taskset
from bankbench.machine.postgres import Cluster, free_port


@dataclass(frozen=True)
class Service:
    name: str
    command: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()

    def start(self, *, port: int, pool: int | None, db_env: dict[str, str], log: Path,
              cpus: tuple[int, ...] = ()) -> "Running":
        running = self.launch(port=port, pool=pool, db_env=db_env, log=log, cpus=cpus)
        running.wait_healthy()
        return running

    def launch(self, *, port: int, pool: int | None, db_env: dict[str, str], log: Path,
               cpus: tuple[int, ...] = ()) -> "Running":
        """Starts the service's process without waiting for it (start())."""
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "ab") as out:
            proc = subprocess.Popen(taskset(cpus, self.command), env=self.environment(port, pool, db_env),
                                    stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        return Running(self, proc, f"http://127.0.0.1:{port}", log, cpus)

    def environment(self, port: int, pool: int | None, db_env: dict[str, str]) -> dict[str, str]:
        """Pool settings and admission limit are set, never inherited (config.settings_env; `pool`
        None: the service's defaults); the service's own settings (get()) win over them."""
        inherited = {k: v for k, v in os.environ.items() if k not in config.NOT_INHERITED}
        return {**inherited, **db_env, **(config.settings_env(pool) if pool is not None else {}), **dict(self.env),
                config.PORT: str(port)}


@dataclass
class Running:
    service: Service
    proc: subprocess.Popen
    url: str
    log: Path
    cpus: tuple[int, ...] = ()  # what it was started on: a restart (chaos) starts it there again

    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait_healthy(self) -> None:
        """Polls GET /health until 200; a UserError if the process exits, or stopped after 90 s."""
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            self.check_alive()
            with suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    return
            time.sleep(0.2)
        self.stop()
        raise UserError(f"{self.url} not healthy after 90 s")

    def check_alive(self) -> None:
        if self.proc.poll() is not None:
            raise UserError(f"{self.service.name} exited with {self.proc.returncode}; "
                            f"log {self.log}:\n{self.log.read_text()[-3000:]}")

    def exit_code(self) -> int | None:
        """Its exit status if it has exited (by itself, or by a signal: negative), None while it runs."""
        return self.proc.poll()

    def stop(self, timeout: float = 20) -> None:
        stop_group(self.proc, timeout)


def stop_group(proc: subprocess.Popen, timeout: float) -> None:
    """Ends the session `proc` leads, if it still runs: SIGTERM, then SIGKILL after `timeout` s."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def has_aot_cache(name: str) -> bool:
    return registry.get(name).runtime == "jvm"


@contextmanager
def local_service(service: str | Service, pool: int | None, *, log: Path, cluster: Cluster | None = None,
                  cpus: tuple[int, ...] = (), **settings) -> Iterator[Running]:
    """`service` (a name or a Service) with `pool` connections on `cluster`, else on a throwaway one
    made with `settings`, stopped on exit; the service and a cluster made here use `cpus` only."""
    if isinstance(service, str):
        service = get(service)
    with ExitStack() as stack:
        if cluster is None:
            cluster = stack.enter_context(Cluster.create(cpus=cpus, **settings))
        running = service.start(port=free_port(), pool=pool, db_env=cluster.env(), log=log, cpus=cpus)
        stack.callback(running.stop)
        yield running


def get(name: str, aot: bool | None = None, settings: dict[str, str] | None = None) -> Service:
    """The service `name` of services.yaml plus `settings`; a JVM one runs with jvm.options, then
    JAVA_OPTS (of `settings`, else ours), from its AOT cache when `aot` (None: JAVA_AOT_CACHE=1)."""
    entry = registry.get(name)
    if not entry.artifact.exists():
        raise UserError(f"{entry.artifact.relative_to(paths.ROOT)} is missing: run `{entry.build}`")
    settings = settings or {}
    env = (*entry.environment.items(), *settings.items())
    if entry.runtime == "native":
        return Service(name, (str(entry.artifact),), env)
    java = (str(jdk.java_home() / "bin" / "java"), f"@{paths.JVM_OPTIONS}",
            *settings.get("JAVA_OPTS", os.environ.get("JAVA_OPTS", "")).split())  # after the file: they win
    if not (aotcache.enabled() if aot is None else aot):
        return Service(name, (*java, "-jar", str(entry.artifact)), env)
    jar = aotcache.runnable_jar(entry.artifact)

    def training(options: list[str], log: Path) -> AbstractContextManager[Running]:
        return local_service(Service(name, (*java, *options, "-jar", str(jar)), env),
                             config.DEFAULT_POOL_SIZE, log=log)

    cache = aotcache.cache_options(name, jar, training)
    return Service(name, (*java, *cache, "-jar", str(jar)), env)


def heap_cap_mb(name: str, options: list[str]) -> float | None:
    """The heap cap (MB) that JVM `options` of `name` set, the last -Xmx winning; None if none."""
    sizes = re.findall(r"^-Xmx(\d+)([kmgt]?)$", "\n".join(options), re.IGNORECASE | re.MULTILINE)
    if registry.get(name).runtime != "jvm" or not sizes:
        return None
    number, unit = sizes[-1]
    return int(number) * 1024 ** "bkmgt".index(unit.lower() or "b") / 2**20


def jvm_options() -> list[str]:
    """The options of bank-java/jvm.options, which every Java service runs with (then JAVA_OPTS)."""
    lines = (line.strip() for line in paths.JVM_OPTIONS.read_text().splitlines())
    return [line for line in lines if line and not line.startswith("#")]
