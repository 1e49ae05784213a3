"""`bankbench db up|down`: a throwaway PostgreSQL for running the services by hand and for tests.

`up` writes the connection settings to .run/db.env (KEY=value lines, sourced by the Makefile);
`down` stops the cluster named there and deletes it.

See docs/configuration.md#running-by-hand.
"""

import argparse
from pathlib import Path

from bankbench import paths
from bankbench.errors import UserError
from bankbench.machine.postgres import Cluster


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=("up", "down"))
    p.add_argument("--port", type=int, help="port to listen on (default: a free one)")
    p.add_argument("--max-connections", type=int, help="override max_connections")
    p.add_argument("--env-file", type=Path, default=paths.STATE / "db.env",
                   help="where the settings go")


def main(args: argparse.Namespace) -> int:
    env_file = args.env_file
    if args.action == "down":
        if not env_file.exists():
            print("no database is up")
            return 0
        env = dict(line.split("=", 1) for line in env_file.read_text().split())
        Cluster(root=Path(env["BANKBENCH_PG_ROOT"]), port=int(env["POSTGRES_PORT"])).destroy()
        env_file.unlink()
        print(f"stopped and deleted the database on port {env['POSTGRES_PORT']}")
        return 0
    if env_file.exists():
        raise UserError(f"a database is already up ({env_file}): run `make db-down` first")
    cluster = Cluster.create(args.port, max_connections=args.max_connections)
    env = {**cluster.env(), "BANKBENCH_PG_ROOT": str(cluster.root)}
    env_file.parent.mkdir(parents=True, exist_ok=True)
    env_file.write_text("".join(f"{k}={v}\n" for k, v in env.items()))
    print(f"PostgreSQL {cluster.settings()['server_version']} on 127.0.0.1:{cluster.port}, "
          f"database {env['POSTGRES_NAME']}, schema loaded")
    print(f"settings written to {env_file}:\n{env_file.read_text()}", end="")
    return 0
