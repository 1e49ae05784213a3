"""Where a benchmark runs: the operations the runner drives in every environment (Env), and the
two that run here: native processes (default) and docker compose. awsbench adds `aws`.

An environment gives a fresh database per level, a started service, the level's load, psql for
the checks, and what the manifest says of it: the machine, the versions of what ran, the
settings passed. The local two run the load on this machine (bankbench.run.localload) and measure
the service and PostgreSQL as process trees (native) or by the containers' cgroups (compose).
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from bankbench import config, paths, registry
from bankbench.system import aotcache, services
from bankbench.run import composefile, images
from bankbench.load import jmeter
from bankbench.measure import manifest, resources as metrics
from bankbench.errors import UserError
from bankbench.run.localload import LocalLoad
from bankbench.tools.pg import Cluster, free_port
from bankbench.tools.placement import SPLIT
from bankbench.load.profiles import Level

if TYPE_CHECKING:
    from bankbench.run.runner import Options


class Service(Protocol):
    url: str

    def stop(self) -> None: ...


class Load(Protocol):
    """One level's load: service_env() before the service starts, run() while it is up,
    finish() once it has stopped (the faults struck, returned for level.json)."""

    def service_env(self) -> dict[str, str] | None: ...

    def run(self, svc: Service, tag: str, remaining_s: float) -> tuple[int, int]: ...

    def finish(self, window: tuple[int, int]) -> list[dict]: ...


class Env(Protocol):
    """An environment, opened with the run's options and closed when the run ends."""

    name: str
    local_build: bool  # it runs this checkout's build: the run starts with `bankbench verify` of it

    def __init__(self, opts: Options) -> None: ...

    def describe(self) -> str:
        """Where the run happens, for its first line."""

    def reset(self) -> None:
        """A new database with the schema alone: every environment's level starts from it."""

    def start(self, service: str, pool: int, log: Path, extra_env: dict[str, str] | None) -> Service: ...

    def load(self, level: Level, out: Path) -> Load: ...

    def psql(self, sql: str) -> str:
        """Runs SQL in the benchmark's database; returns its rows as `psql -A -t` prints them."""

    def machine(self) -> dict: ...

    def versions(self, postgresql: str) -> dict[str, str]:
        """The versions of what runs, `postgresql` being the server's: asked when the run starts
        and again after its last level (AWS learns the image digests from the tasks it ran)."""

    def settings(self) -> dict[str, object]:
        """The manifest's settings of this environment: what the services and the load ran with."""

    def level_settings(self) -> dict[str, object]:
        """What level.json adds in this environment."""

    def close(self) -> None: ...


class Local:
    """What native and compose share: the load runs on this machine, on the CPUs of the run's
    placement. Opening one pins this process (the harness, and so JMeter) to the load
    generator's CPUs: the runner restores its affinity when the run ends."""

    name: str
    local_build = True

    def __init__(self, opts: Options):
        self.opts = opts
        self.placement = opts.placement
        self.placement.pin_harness()
        self._versions: dict[str, str] | None = None

    def versions(self, postgresql: str) -> dict[str, str]:
        """Read once: the build and the images do not change during a run."""
        if self._versions is None:
            self._versions = self.read_versions(postgresql)
        return self._versions

    def describe(self) -> str:
        return f"{self.name}, CPUs {self.placement.describe()}"

    def load(self, level: Level, out: Path) -> LocalLoad:
        return LocalLoad(self, level, out, self.opts.dashboard, self.opts.chaos, self.opts.profile_cpu)

    def machine(self) -> dict:
        return manifest.machine()

    def settings(self) -> dict[str, object]:
        return {"cpu_placement": self.placement.as_dict(), **self.service_settings(),
                "jmeter_jvm": jmeter.JVM_OPTIONS}

    def level_settings(self) -> dict[str, object]:
        split = self.placement.mode == SPLIT
        return {"cpu_placement": self.placement.mode,
                **({"loadgen_cpus": len(self.placement.loadgen)} if split else {})}


class Native(Local):
    """A throwaway cluster from the machine's binaries; services as local processes."""

    name = "native"

    def __init__(self, opts: Options):
        super().__init__(opts)
        self.cluster = Cluster.create(max_connections=opts.pg_max_connections, durable=opts.durable,
                                      cpus=self.placement.sut_cpus)

    def reset(self) -> None:
        self.cluster.reset()

    def start(self, service: str, pool: int, log: Path,
              extra_env: dict[str, str] | None = None) -> "services.Running":
        return services.get(service).start(port=free_port(), pool=pool, db_env=self.cluster.env(),
                                           log=log, extra_env=extra_env, cpus=self.placement.sut_cpus)

    def pg_pid(self) -> int:
        return self.cluster.postmaster_pid()

    def measure(self, pid: int) -> metrics.Tree:
        """How the sampler measures a process of the system under test: its process tree."""
        return metrics.Tree(pid)

    def read_versions(self, postgresql: str) -> dict[str, str]:
        return manifest.versions(postgresql)

    def service_settings(self) -> dict[str, object]:
        """What the services run with here, beyond the pool of each level."""
        return {"acquire_timeout_ms": int(os.environ.get(config.ACQUIRE_TIMEOUT_MS,
                                                         config.DEFAULT_ACQUIRE_TIMEOUT_MS)),
                "jvm_options": services.jvm_options(),
                "java_aot_cache": aotcache.enabled(),
                "java_opts": os.environ.get("JAVA_OPTS", "")}

    def psql(self, sql: str) -> str:
        return self.cluster.psql(sql)

    def close(self) -> None:
        self.cluster.destroy()


@dataclass
class Container:
    """A service started by compose; `pid` is its main process as the host sees it."""

    compose: "Compose"
    service: str
    url: str
    pid: int

    def stop(self) -> None:
        self.compose.run("stop", self.service)


class Compose(Local):
    """docker-compose.yml: PostgreSQL re-created per level, one service container at a time.

    Under CPU placement "split" the containers get the system under test's CPUs (cpuset), as
    the native processes get them with taskset.
    """

    name = "compose"

    def __init__(self, opts: Options):
        if not opts.durable:
            raise UserError("ENV=compose runs durable PostgreSQL only")
        super().__init__(opts)
        base_images = _base_images()
        self.env = {**base_images, **os.environ,
                    "PG_MAX_CONNECTIONS": str(opts.pg_max_connections or 100),
                    "SUT_CPUS": ",".join(map(str, self.placement.sut_cpus))}
        print("bankbench: docker compose build, on the "
              f"{'local base images of make offline-images' if base_images else 'public base images'}", flush=True)
        try:
            self.run("build")
        except UserError as err:
            raise UserError(f"{err}\nWithout Docker Hub, build local base images first: make offline-images") from None
        self.reset()

    def run(self, *args: str, stdin: str | None = None) -> str:
        cmd = ["docker", "compose", "-f", str(paths.COMPOSE), *args]
        out = subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=self.env)
        if out.returncode != 0:
            raise UserError(f"{' '.join(cmd[2:])} failed: {out.stderr.strip()}")
        return out.stdout.strip()

    def reset(self) -> None:
        try:
            self.run("rm", "--stop", "--force", "--volumes", "postgres")
        except UserError as err:
            # Docker 20.10 can refuse a removal it is already doing (seen once in CI): let it end.
            if "already in progress" not in str(err):
                raise
            self._wait_removed("postgres")
        self.run("up", "--detach", "--wait", "postgres")

    def _wait_removed(self, service: str, timeout_s: float = 60) -> None:
        deadline = time.monotonic() + timeout_s
        while self.run("ps", "--all", "--quiet", service):
            if time.monotonic() > deadline:
                raise UserError(f"the {service} container was not removed within {timeout_s:.0f} s")
            time.sleep(1)

    def start(self, service: str, pool: int, log: Path,
              extra_env: dict[str, str] | None = None) -> Container:
        if extra_env:
            raise UserError("ENV=compose cannot record CPU profiles (PROFILE_CPU): use ENV=native")
        name = composefile.service_name(service)
        self.env[config.POOL_SIZE] = str(pool)  # docker-compose.yml passes it through
        # --wait: until the image's health check passes, /health answering.
        self.run("up", "--detach", "--wait", "--force-recreate", "--no-deps", name)
        return Container(self, name, f"http://127.0.0.1:{registry.get(service).port}", self._pid(name))

    def pg_pid(self) -> int:
        return self._pid("postgres")

    def measure(self, pid: int) -> metrics.Cgroup:
        """How the sampler measures a container, by its main process: its cgroup."""
        return metrics.Cgroup(pid)

    def read_versions(self, postgresql: str) -> dict[str, str]:
        return images.versions(composefile.postgres_image(), postgresql)

    def service_settings(self) -> dict[str, object]:
        """What the containers run with: docker-compose.yml passes the pool alone, and the Java
        image starts with its copy of bank-java/jvm.options."""
        return {"acquire_timeout_ms": config.DEFAULT_ACQUIRE_TIMEOUT_MS,
                "jvm_options": services.jvm_options(), "java_aot_cache": False, "java_opts": ""}

    def psql(self, sql: str) -> str:
        return self.run("exec", "-T", "postgres", "psql", "-X", "-q", "-A", "-t", "-U",
                        "postgres", "-d", "bank", "-v", "ON_ERROR_STOP=1", "-f", "-", stdin=sql)

    def close(self) -> None:
        self.run("down", "--volumes")

    def _pid(self, service: str) -> int:
        container = self.run("ps", "--quiet", service)
        out = subprocess.run(["docker", "inspect", "--format", "{{.State.Pid}}", container],
                             capture_output=True, text=True)
        return int(out.stdout.strip())


def _base_images() -> dict[str, str]:
    """The local base images of `make offline-images` (.run/images.env), written again for a new
    clone when the engine has them all; none when it does not (the Dockerfiles' public images)."""
    if not paths.IMAGES_ENV.exists():
        subprocess.run(["bash", str(paths.OFFLINE_IMAGES), "--if-built"], capture_output=True)
    if not paths.IMAGES_ENV.exists():
        return {}
    lines = (line.strip() for line in paths.IMAGES_ENV.read_text().splitlines())
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


LOCAL: dict[str, type[Env]] = {"native": Native, "compose": Compose}  # `bankbench bench --env`
