"""A throwaway PostgreSQL 15 cluster of the machine's binaries, no Docker.

Its server is postgres_binaries'; SQL via psycopg. As root (initdb refuses it) the cluster is the
`postgres` user's and `runuser` runs its server commands; db/'s settings files are copied into the
data directory, where that user can read them.

See docs/setup.md#postgresql-15-everywhere-1518-where-we-pin-it."""

import os
import shutil
import socket
import subprocess
import tempfile
import threading
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

import psycopg

from bankbench import paths
from bankbench.errors import UserError
from bankbench.machine import postgres_binaries
from bankbench.machine.placement import taskset

USER = "postgres"
DATABASE = "bank"
# A level's fresh database in every environment: these on the `postgres` database, then
# db/schema.sql in the new one (native after a restart, AWS in its admin task; compose: new volume).
RECREATE_DATABASE = (f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)", f"CREATE DATABASE {DATABASE}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# The server settings that every benchmark result records.
SETTINGS_SQL = (
    "SELECT name, current_setting(name) FROM pg_settings WHERE name IN ('max_connections', "
    "'shared_buffers', 'fsync', 'synchronous_commit', 'full_page_writes', 'wal_level', "
    "'max_wal_size', 'checkpoint_timeout', 'server_version') ORDER BY name")


def parse_settings(rows: str) -> dict[str, str]:
    return dict(line.split("|", 1) for line in rows.splitlines())


@dataclass
class Cluster(AbstractContextManager):
    """A cluster under `root` on 127.0.0.1:`port`; as a context manager, destroyed on exit."""

    root: Path
    port: int
    max_connections: int | None = None  # overrides db/postgresql.conf when set
    extra_settings: dict[str, str] = field(default_factory=dict)  # more -c name=value
    durable: bool = True
    cpus: tuple[int, ...] = ()  # the server runs on these only (bankbench.machine.placement); all if empty
    bin: Path = field(default_factory=postgres_binaries.bindir)

    @classmethod
    def create(cls, port: int | None = None, **kwargs) -> Self:
        """A new cluster under the system temp dir: `postgres` may not reach a private clone."""
        if "bin" not in kwargs:
            kwargs["bin"] = postgres_binaries.bindir()  # before the directory: it may fetch, or fail
        root = Path(tempfile.mkdtemp(prefix="bankbench-pg-"))
        cluster = cls(root=root, port=port or free_port(), **kwargs)
        cluster.init()
        return cluster

    def __exit__(self, *exc: object) -> None:
        self.destroy()

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def log(self) -> Path:
        return self.data / "server.log"

    def env(self) -> dict[str, str]:
        return {"POSTGRES_HOST": "127.0.0.1", "POSTGRES_PORT": str(self.port),
                "POSTGRES_USER": USER, "POSTGRES_PASSWORD": "postgres",  # trust auth: ignored
                "POSTGRES_NAME": DATABASE}

    def init(self) -> None:
        """Creates the cluster with the shared settings and an empty `bank` database (reset)."""
        self._own(self.root)
        self._server("initdb", "-D", str(self.data), "-U", USER, "--auth=trust", "-E", "UTF8",
                     "--no-instructions")
        with open(self.data / "postgresql.conf", "a") as f:
            for conf in [paths.PG_SETTINGS] + ([] if self.durable else [paths.PG_NON_DURABLE]):
                name = f"bankbench-{conf.name}"  # never clobber the cluster's own postgresql.conf
                shutil.copy(conf, self.data / name)
                f.write(f"include '{name}'\n")
        self._own(self.data)
        self.reset()

    def start(self) -> None:
        opts = f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1"
        if self.max_connections:
            opts += f" -c max_connections={self.max_connections}"
        opts += "".join(f" -c {name}={value}" for name, value in self.extra_settings.items())
        self._server("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60",
                     "-o", opts, "start", cpus=self.cpus)

    def stop(self, mode: str = "fast") -> None:
        status = self._as_server([str(self.bin / "pg_ctl"), "-D", str(self.data), "status"])
        if subprocess.run(status, capture_output=True).returncode == 0:  # it runs
            self._server("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def postmaster_pid(self) -> int:
        return int((self.data / "postmaster.pid").read_text().split()[0])

    def reset(self) -> None:
        """Fresh state for a benchmark level: restart the server, recreate the database."""
        self.stop()
        self.start()
        for statement in RECREATE_DATABASE:
            self.psql(statement, database="postgres")
        self.psql(paths.SCHEMA.read_text())

    def destroy(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    def psql(self, sql: str, database: str = DATABASE) -> str:
        """Runs SQL (statements sent as one query, as `psql -c`): rows as `psql -A -t` prints."""
        try:
            with psycopg.connect(host="127.0.0.1", port=self.port, user=USER, dbname=database,
                                 autocommit=True) as conn, conn.cursor() as cur:
                cur.execute(sql)  # no parameters: the simple query protocol, as psql uses
                rows = []
                while True:  # each statement's rows, in the server's text form (no Python types)
                    res = cur.pgresult
                    assert res is not None  # execute() and each nextset() that found one set it
                    rows += ["|".join((res.get_value(row, col) or b"").decode()
                                      for col in range(res.nfields)) for row in range(res.ntuples)]
                    if not cur.nextset():
                        return "\n".join(rows)
        except psycopg.Error as err:
            raise UserError(f"SQL failed: {err}") from err

    def settings(self) -> dict[str, str]:
        return parse_settings(self.psql(SETTINGS_SQL))

    def psql_background(self, sql: str) -> threading.Thread:
        """Starts SQL in a session of its own (tests hold locks so); join() the thread to wait."""
        thread = threading.Thread(target=self.psql, args=(sql,), daemon=True)
        thread.start()
        return thread

    def _server(self, tool: str, *args: str, cpus: tuple[int, ...] = ()) -> None:
        cmd = taskset(cpus, self._as_server([str(self.bin / tool), *args]))
        out = subprocess.run(cmd, capture_output=True, text=True, cwd="/")
        if out.returncode != 0:
            log = self.log.read_text()[-2000:] if self.log.exists() else ""
            raise UserError(f"{tool} failed: {out.stderr.strip() or out.stdout.strip()}\n{log}")

    @staticmethod
    def _as_server(cmd: list[str]) -> list[str]:
        return ["runuser", "-u", USER, "--", *cmd] if os.geteuid() == 0 else cmd

    @staticmethod
    def _own(path: Path) -> None:
        if os.geteuid() == 0:
            for p in [path, *path.rglob("*")]:
                shutil.chown(p, USER, USER)
