"""The one-off admin task: a fresh database before a level, the money check after it.

It runs psql in the PostgreSQL image (infra/docker/postgres/Dockerfile holds copies of
db/schema.sql and db/money_check.sql) and prints to its CloudWatch log, read back here.
"""

from __future__ import annotations

import time
from typing import Any

from bankbench import money
from bankbench.errors import UserError
from bankbench.pg import RECREATE_DATABASE

PSQL = ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"]
# The reset of every environment (bankbench.pg.RECREATE_DATABASE, on the `postgres` database),
# then the schema in the new database (PGDATABASE). Two psql runs: one shell.
RESET = ["sh", "-c", 'drop=$1 create=$2; shift 2; "$@" -d postgres -c "$drop" -c "$create" && '
         '"$@" -f /bankbench/schema.sql', "reset", *RECREATE_DATABASE, *PSQL]
CHECK = [*PSQL, "-c", "SHOW max_connections", "-f", "/bankbench/money_check.sql"]
LOG_WAIT_S = 60


def task_log(logs: Any, group: str, task_arn: str, lines: int, wait_s: float = LOG_WAIT_S) -> list[str]:
    """The first `lines` lines the admin task printed (its log reaches CloudWatch shortly after)."""
    stream = f"admin/admin/{task_arn.rsplit('/', 1)[1]}"
    deadline = time.monotonic() + wait_s
    while True:
        try:
            events = logs.get_log_events(logGroupName=group, logStreamName=stream, startFromHead=True)["events"]
        except logs.exceptions.ResourceNotFoundException:
            events = []
        printed = [e["message"].strip() for e in events if e["message"].strip()]
        if len(printed) >= lines:
            return printed[:lines]
        if time.monotonic() > deadline:
            raise UserError(f"the admin task printed {printed} to {group}/{stream}, expected {lines} lines")
        time.sleep(5)


def parse_check(lines: list[str]) -> tuple[int, dict[str, object]]:
    """(max_connections, money.json) from the check's two output lines."""
    return int(lines[0]), money.parse(lines[1])
