import subprocess
import time

import boto3
import pytest
from moto import mock_aws

from awsbench import database
from bankbench.errors import UserError
from bankbench.pg import RECREATE_DATABASE

TASK = "arn:aws:ecs:us-east-1:123456789012:task/bankbench/0123456789abcdef"


def test_check_output_gives_max_connections_and_the_money_verdict():
    assert database.parse_check(["100", "3|1200|1200|0|0"]) == (100, {
        "ok": True, "clients": 3, "sum_balances": 1200, "sum_deposits": 1200,
        "ledger_mismatches": 0, "negative_balances": 0})
    assert database.parse_check(["100", "3|1200|1100|1|0"])[1]["ok"] is False


@mock_aws
def test_the_admin_task_output_is_read_from_its_log_stream():
    logs = boto3.client("logs", region_name="us-east-1")
    logs.create_log_group(logGroupName="/ecs/bankbench/postgres")
    stream = "admin/admin/0123456789abcdef"
    logs.create_log_stream(logGroupName="/ecs/bankbench/postgres", logStreamName=stream)
    now = int(time.time() * 1000)
    logs.put_log_events(logGroupName="/ecs/bankbench/postgres", logStreamName=stream, logEvents=[
        {"timestamp": now, "message": "100"}, {"timestamp": now + 1, "message": "3|1200|1200|0|0"}])
    assert database.task_log(logs, "/ecs/bankbench/postgres", TASK, 2, wait_s=0) == ["100", "3|1200|1200|0|0"]


@mock_aws
def test_a_missing_log_is_an_error_after_the_wait():
    logs = boto3.client("logs", region_name="us-east-1")
    logs.create_log_group(logGroupName="/ecs/bankbench/postgres")
    with pytest.raises(UserError, match="expected 2 lines"):
        database.task_log(logs, "/ecs/bankbench/postgres", TASK, 2, wait_s=0)


def test_reset_recreates_the_database_as_native_does_and_stops_at_the_first_error(tmp_path):
    """Runs the admin task's command with a psql that records its calls."""
    psql = tmp_path / "psql"
    psql.write_text(f'#!/bin/sh\nprintf "%s|" "$@" >> {tmp_path}/calls\necho >> {tmp_path}/calls\n')
    psql.chmod(0o755)
    env = {"PATH": f"{tmp_path}:/usr/bin:/bin"}
    subprocess.run(database.RESET, env=env, check=True)
    first, second = (tmp_path / "calls").read_text().splitlines()
    assert first.split("|")[-7:-1] == ["-d", "postgres", "-c", RECREATE_DATABASE[0], "-c", RECREATE_DATABASE[1]]
    assert second.endswith("-f|/bankbench/schema.sql|") and "ON_ERROR_STOP=1" in first and "ON_ERROR_STOP=1" in second
    psql.write_text("#!/bin/sh\nexit 3\n")  # the schema is not loaded after a failed drop
    assert subprocess.run(database.RESET, env=env).returncode == 3
