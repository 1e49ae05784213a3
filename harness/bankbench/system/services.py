"""The services under test: how to start each one, wait until it serves, and stop it."""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from bankbench import config, paths, registry
from bankbench.errors import UserError
from bankbench.system import aotcache
from bankbench.system.health import wait_healthy
from bankbench.tools import jdk
from bankbench.tools.placement import taskset


@dataclass(frozen=True)
class Service:
    """How to run one service: its command line and the environment it adds."""

    name: str
    command: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()

    def start(self, *, port: int, pool: int, db_env: dict[str, str], log: Path,
              extra_env: dict[str, str] | None = None, cpus: tuple[int, ...] = ()) -> Running:
        """Starts the service and waits until it serves; `extra_env` adds settings, such as
        those of a CPU profile (bankbench.measure.cpuprofile); `cpus` restricts it to those CPUs."""
        env = {**os.environ, **db_env, **dict(self.env), **(extra_env or {}),
               config.PORT: str(port), config.POOL_SIZE: str(pool)}
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "ab") as out:
            proc = subprocess.Popen(taskset(cpus, self.command), env=env, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        running = Running(self, proc, f"http://127.0.0.1:{port}", log, cpus)
        running.wait_healthy()
        return running


@dataclass
class Running:
    """A started service process."""

    service: Service
    proc: subprocess.Popen
    url: str
    log: Path
    cpus: tuple[int, ...] = ()  # what it was started on: a restart (chaos) starts it there again

    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait_healthy(self, timeout: float = 90) -> None:
        try:
            wait_healthy(self.url, timeout, self._check_alive)
        except UserError:
            self.stop()
            raise

    def _check_alive(self) -> None:
        if self.proc.poll() is not None:
            raise UserError(f"{self.service.name} exited with {self.proc.returncode}; "
                            f"log {self.log}:\n{self.log.read_text()[-3000:]}")

    def stop(self, timeout: float = 20) -> None:
        """SIGTERM (graceful shutdown), then SIGKILL if it does not exit in time."""
        if self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def get(name: str) -> Service:
    """The service called `name`, as services.yaml describes it; every JVM service runs on the
    one JDK (bankbench.tools.jdk) with bank-java/jvm.options."""
    entry = registry.get(name)
    if not entry.artifact.exists():
        raise UserError(f"{entry.artifact.relative_to(paths.ROOT)} is missing: run `{entry.build}`")
    env = tuple(entry.environment.items())
    if entry.runtime == "native":
        return Service(name, (str(entry.artifact),), env)
    java = (str(jdk.java_home() / "bin" / "java"), f"@{paths.JVM_OPTIONS}",
            *os.environ.get("JAVA_OPTS", "").split())  # JAVA_OPTS after the file: they win
    if not aotcache.enabled():
        return Service(name, (*java, "-jar", str(entry.artifact)), env)
    jar = aotcache.extracted_jar(entry.artifact)
    cache = aotcache.cache_options(name, jar, (*java, "-jar", str(jar)), {**os.environ, **entry.environment})
    return Service(name, (*java, *cache, "-jar", str(jar)), env)


def jvm_options() -> list[str]:
    """The options of bank-java/jvm.options, which both Java variants run with (then JAVA_OPTS)."""
    lines = (line.strip() for line in paths.JVM_OPTIONS.read_text().splitlines())
    return [line for line in lines if line and not line.startswith("#")]
