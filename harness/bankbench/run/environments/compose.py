"""ENV=compose: docker-compose.yml on this machine's engine, containers measured by cgroup.

See docs/benchmarks.md#envcompose."""

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from bankbench import config, paths, registry
from bankbench.errors import UserError
from bankbench.measure import resources
from bankbench.run.environments import composefile, images
from bankbench.run.environments.interface import Options
from bankbench.run.environments.local import Local


@dataclass
class Container:
    compose: "Compose"
    service: str
    url: str
    pid: int  # its main process, as the host sees it

    def exit_code(self) -> int | None:
        running, code = self.compose.inspect("{{.State.Running}} {{.State.ExitCode}}",
                                             "--all", self.service).split()
        return None if running == "true" else int(code)

    def stop(self) -> None:
        self.compose.run("stop", self.service)


class Compose(Local):
    """PostgreSQL re-created per level, one service container at a time, on the placement's CPUs."""

    name = "compose"

    def __init__(self, opts: Options, run_id: str):
        if not opts.durable:
            raise UserError("ENV=compose runs durable PostgreSQL only")
        registry.require_images(opts.profile.services, self.name)
        super().__init__(opts, run_id)
        base_images = _base_images()
        self.env = {**base_images, **os.environ,
                    "PG_MAX_CONNECTIONS": str(opts.pg_max_connections),
                    "SERVICE_CPUS": ",".join(map(str, self.placement.service_cpus)),
                    "POSTGRES_CPUS": ",".join(map(str, self.placement.postgres_cpus))}
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
            deadline = time.monotonic() + 60
            while self.run("ps", "--all", "--quiet", "postgres"):
                if time.monotonic() > deadline:
                    raise UserError("the postgres container was not removed within 60 s") from None
                time.sleep(1)
        self.run("up", "--detach", "--wait", "postgres")

    def start(self, service: str, pool: int, log: Path,
              extra_env: dict[str, str] | None = None, aot: bool = False) -> Container:
        if extra_env:
            raise UserError("ENV=compose cannot add to a service's environment (PROFILE_CPU, TUNED=1, a heap limit): "
                            "use ENV=native")
        if aot:
            raise UserError("ENV=compose has no AOT cache in its images: run start \"aot\" with ENV=native")
        name = composefile.service_name(service)
        self.env.update(config.settings_env(pool))  # docker-compose.yml passes them through
        # --wait: until the image's health check passes, /health answering.
        self.run("up", "--detach", "--wait", "--force-recreate", "--no-deps", name)
        pid = int(self.inspect("{{.State.Pid}}", name))
        return Container(self, name, f"http://127.0.0.1:{registry.get(service).port}", pid)

    def pg_pid(self) -> int:
        return int(self.inspect("{{.State.Pid}}", "postgres"))

    measure = resources.Cgroup  # what the sampler measures of a pid: its container's cgroup

    def read_versions(self, postgresql: str) -> dict[str, str]:
        return images.versions(composefile.postgres_image(), postgresql)

    def java_settings(self) -> dict[str, object]:
        """The Java image starts with its copy of bank-java/jvm.options alone."""
        return {"java_aot_cache": False, "java_opts": ""}

    def psql(self, sql: str) -> str:
        return self.run("exec", "-T", "postgres", "psql", "-X", "-q", "-A", "-t", "-U",
                        "postgres", "-d", "bank", "-v", "ON_ERROR_STOP=1", "-f", "-", stdin=sql)

    def close(self) -> None:
        self.run("down", "--volumes")

    def inspect(self, fmt: str, *ps_args: str) -> str:
        container = self.run("ps", "--quiet", *ps_args)
        return subprocess.run(["docker", "inspect", "--format", fmt, container],
                              capture_output=True, text=True).stdout.strip()


def _base_images() -> dict[str, str]:
    """The local base images of `make offline-images` (.run/images.env), written again for a new
    clone when the engine has them all; none when it does not (the Dockerfiles' public images)."""
    if not paths.IMAGES_ENV.exists():
        subprocess.run(["bash", str(paths.OFFLINE_IMAGES), "--if-built"], capture_output=True)
    if not paths.IMAGES_ENV.exists():
        return {}
    lines = (line.strip() for line in paths.IMAGES_ENV.read_text().splitlines())
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))
