"""The one-off admin task on AWS: psql in the PostgreSQL image.

It resets the database and runs the runner's SQL, printing the rows to its CloudWatch log, read back
here.

See infra/README.md#what-it-creates."""

import time
from typing import Any

from bankbench.errors import UserError
from bankbench.machine.postgres import RECREATE_DATABASE

PSQL = ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"]
# Every environment's reset (RECREATE_DATABASE, on the `postgres` database), then the schema (the
# image's copy of db/schema.sql) in the new database (PGDATABASE): two psql runs, one shell.
RESET = ["sh", "-c", 'drop=$1 create=$2; shift 2; "$@" -d postgres -c "$drop" -c "$create" && '
         '"$@" -f /bankbench/schema.sql', "reset", *RECREATE_DATABASE, *PSQL]
READY = [*PSQL, "-c", "SELECT 1"]  # answers once PostgreSQL runs and its name resolves
END = "-- bankbench: end of output --"  # printed after the rows: the log holds them all then


def query(sql: str) -> list[str]:
    """The admin task's command for `sql`: run as `psql -f` runs a file, then END printed."""
    return ["sh", "-c", f'sql=$1; shift; printf "%s\\n" "$sql" | "$@" -f - && echo "{END}"',
            "query", sql, *PSQL]


def task_log(logs: Any, group: str, task_arn: str, wait_s: float = 60) -> list[str]:
    """The lines a query() task printed before END (its log reaches CloudWatch shortly after)."""
    stream = f"admin/admin/{task_arn.rsplit('/', 1)[1]}"
    deadline = time.monotonic() + wait_s
    while True:
        try:
            events = logs.get_log_events(logGroupName=group, logStreamName=stream, startFromHead=True)["events"]
        except logs.exceptions.ResourceNotFoundException:
            events = []
        printed = [e["message"].strip() for e in events if e["message"].strip()]
        if END in printed:
            return printed[:printed.index(END)]
        if time.monotonic() > deadline:
            raise UserError(f"the admin task's log {group}/{stream} did not end within {wait_s:.0f} s: {printed}")
        time.sleep(5)
