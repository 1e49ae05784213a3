"""ENV=native, the default: a throwaway cluster of the machine's binaries, services as processes.

See docs/benchmarks.md#how-a-level-runs."""

import os
from pathlib import Path

from bankbench.bank import aotcache, processes
from bankbench.machine.postgres import Cluster, free_port
from bankbench.measure import manifest, resources
from bankbench.run.environments.interface import Options
from bankbench.run.environments.local import Local


class Native(Local):
    name = "native"

    def __init__(self, opts: Options, run_id: str):
        super().__init__(opts, run_id)
        self.cluster = Cluster.create(max_connections=opts.pg_max_connections, durable=opts.durable,
                                      cpus=self.placement.postgres_cpus)

    def reset(self) -> None:
        self.cluster.reset()

    def start(self, service: str, pool: int, log: Path,
              extra_env: dict[str, str] | None = None, aot: bool = False) -> processes.Running:
        return processes.get(service, aot=aot or None, settings=extra_env).start(
            port=free_port(), pool=pool, db_env=self.cluster.env(), log=log, cpus=self.placement.service_cpus)

    def pg_pid(self) -> int:
        return self.cluster.postmaster_pid()

    measure = resources.Tree  # what the sampler measures of a pid: its process tree

    def read_versions(self, postgresql: str) -> dict[str, str]:
        return manifest.versions(postgresql)

    def java_settings(self) -> dict[str, object]:
        return {"java_aot_cache": aotcache.enabled(), "java_opts": os.environ.get("JAVA_OPTS", "")}

    def psql(self, sql: str) -> str:
        return self.cluster.psql(sql)

    def close(self) -> None:
        self.cluster.destroy()
