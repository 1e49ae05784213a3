import subprocess

from bankbench.machine.postgres import RECREATE_DATABASE
from bankbench.run.environments.aws import database


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
