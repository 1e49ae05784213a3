"""The PostgreSQL 15 server binaries: the machine's own when there are, else the package fetched
from Maven Central; a real cluster on the package, with pg_stat_statements."""

from __future__ import annotations

import platform
from pathlib import Path
from typing import Callable, Iterator

import pytest

from bankbench import pgbin
from bankbench.errors import UserError
from bankbench.pg import Cluster


@pytest.fixture(scope="module")
def packaged(path_without: Callable[..., str]) -> Iterator[Cluster]:
    """A cluster made with PG_BINDIR unset and no pg_config on the PATH: a machine without
    PostgreSQL."""
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("PG_BINDIR", raising=False)
        mp.setenv("PATH", path_without("pg_config"))
        cluster = Cluster.create()
    yield cluster
    cluster.destroy()


def test_packaged_server_is_used_without_a_system_one(packaged: Cluster) -> None:
    assert packaged.bin == pgbin.package_bindir()
    assert packaged.psql("SELECT version()").startswith(f"PostgreSQL {pgbin.MAJOR}.")
    assert packaged.psql("SELECT count(*) FROM client") == "0"  # the schema is loaded


def test_packaged_server_has_pg_stat_statements(packaged: Cluster) -> None:
    packaged.psql("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
    packaged.stop()
    packaged.start()
    packaged.psql("CREATE EXTENSION pg_stat_statements")
    packaged.psql("SELECT balance FROM client WHERE id = 42")
    calls = packaged.psql("SELECT sum(calls) FROM pg_stat_statements "
                          "WHERE query LIKE 'SELECT balance FROM client%'")
    assert calls == "1"


def test_rows_come_back_as_psql_prints_them(packaged: Cluster) -> None:
    rows = packaged.psql("SELECT 1, NULL, true, 'a|b'; SELECT 2 UNION ALL SELECT 3")
    assert rows == "1||t|a|b\n2\n3"


def test_sql_errors_are_user_errors(packaged: Cluster) -> None:
    with pytest.raises(UserError, match="division by zero"):
        packaged.psql("SELECT 1 / 0")


def test_pg_bindir_without_a_server_is_refused(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PG_BINDIR", str(tmp_path))
    with pytest.raises(UserError, match="no initdb, pg_ctl, postgres there"):
        pgbin.bindir()


def test_pg_bindir_of_another_major_is_refused(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    for tool in pgbin.SERVER_TOOLS:
        (tmp_path / tool).write_text("#!/bin/sh\necho 'postgres (PostgreSQL) 16.4'\n")
        (tmp_path / tool).chmod(0o755)
    monkeypatch.setenv("PG_BINDIR", str(tmp_path))
    with pytest.raises(UserError, match="PostgreSQL 16.4, 15 needed"):
        pgbin.bindir()


def test_a_package_with_another_hash_is_refused(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    artifact, _ = pgbin.ARTIFACTS[platform.machine()]
    monkeypatch.setattr(pgbin, "ARTIFACTS", {platform.machine(): (artifact, "0" * 64)})
    monkeypatch.setattr(pgbin, "CACHE", tmp_path)
    with pytest.raises(UserError, match="refused"):
        pgbin.fetch()
    assert list(tmp_path.iterdir()) == []  # nothing half-unpacked is left to be used
