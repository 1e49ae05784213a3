"""The PostgreSQL 15 server binaries: the machine's own when there are, else the package fetched
from Maven Central; a real cluster on the package, with pg_stat_statements."""

from __future__ import annotations

import hashlib
import platform
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bankbench.errors import UserError
from bankbench.machine import postgres_binaries
from bankbench.machine.postgres import Cluster


@pytest.fixture(scope="module")
def packaged(path_without: Callable[..., str]) -> Iterator[Cluster]:
    """A cluster made with PG_BINDIR unset and no pg_config on the PATH: a machine without
    PostgreSQL, and without xz or tar (a minimal Debian has no xz) for the unpacking."""
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("PG_BINDIR", raising=False)
        mp.setenv("PATH", path_without("pg_config", "xz", "tar"))
        cluster = Cluster.create()
    with cluster:
        yield cluster


@pytest.mark.integration
@pytest.mark.untimed
def test_packaged_server_is_used_without_a_system_one(packaged: Cluster) -> None:
    assert packaged.bin == postgres_binaries.package_bindir()
    assert packaged.psql("SELECT version()").startswith(f"PostgreSQL {postgres_binaries.MAJOR}.")
    assert packaged.psql("SELECT count(*) FROM client") == "0"  # the schema is loaded


@pytest.mark.integration
@pytest.mark.untimed
def test_packaged_server_has_pg_stat_statements(packaged: Cluster) -> None:
    packaged.psql("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
    packaged.stop()
    packaged.start()
    packaged.psql("CREATE EXTENSION pg_stat_statements")
    packaged.psql("SELECT balance FROM client WHERE id = 42")
    calls = packaged.psql("SELECT sum(calls) FROM pg_stat_statements "
                          "WHERE query LIKE 'SELECT balance FROM client%'")
    assert calls == "1"


@pytest.mark.integration
@pytest.mark.untimed
def test_rows_come_back_as_psql_prints_them(packaged: Cluster) -> None:
    rows = packaged.psql("SELECT 1, NULL, true, 'a|b'; SELECT 2 UNION ALL SELECT 3")
    assert rows == "1||t|a|b\n2\n3"


@pytest.mark.integration
@pytest.mark.untimed
def test_sql_errors_are_user_errors(packaged: Cluster) -> None:
    with pytest.raises(UserError, match="division by zero"):
        packaged.psql("SELECT 1 / 0")


def test_pg_bindir_without_a_server_is_refused(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PG_BINDIR", str(tmp_path))
    with pytest.raises(UserError, match="no initdb, pg_ctl, postgres there"):
        postgres_binaries.bindir()


def test_pg_bindir_of_another_major_is_refused(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    for tool in postgres_binaries.SERVER_TOOLS:
        (tmp_path / tool).write_text("#!/bin/sh\necho 'postgres (PostgreSQL) 16.4'\n")
        (tmp_path / tool).chmod(0o755)
    monkeypatch.setenv("PG_BINDIR", str(tmp_path))
    with pytest.raises(UserError, match=r"PostgreSQL 16\.4, 15 needed"):
        postgres_binaries.bindir()


@pytest.mark.integration
@pytest.mark.untimed
def test_a_package_with_another_hash_is_refused(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    artifact, _ = postgres_binaries.ARTIFACTS[platform.machine()]
    monkeypatch.setattr(postgres_binaries, "ARTIFACTS", {platform.machine(): (artifact, "0" * 64)})
    monkeypatch.setattr(postgres_binaries, "CACHE", tmp_path)
    with pytest.raises(UserError, match="refused"):
        postgres_binaries.fetch()
    assert list(tmp_path.iterdir()) == []  # nothing half-unpacked is left to be used


@pytest.fixture
def corrupt_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A package whose hash is the pinned one but whose .txz is not an archive; returns CACHE."""
    jar = tmp_path / "package.jar"
    with zipfile.ZipFile(jar, "w") as archive:
        archive.writestr("postgres-linux-x86_64.txz", b"not an xz stream" * 100)
    artifact, _ = postgres_binaries.ARTIFACTS[platform.machine()]
    digest = hashlib.sha256(jar.read_bytes()).hexdigest()
    monkeypatch.setattr(postgres_binaries, "ARTIFACTS", {platform.machine(): (artifact, digest)})
    monkeypatch.setattr(postgres_binaries, "maven_jar",
                        lambda artifact, sha256, into, why: Path(jar.replace(into / jar.name)))
    cache = tmp_path / "cache"
    monkeypatch.setattr(postgres_binaries, "CACHE", cache)
    return cache


def test_a_failed_unpack_is_one_clear_error_and_leaves_nothing(corrupt_package: Path) -> None:
    with pytest.raises(UserError, match=r"^unpacking .* failed .*: free some disk"):
        postgres_binaries.fetch()
    assert list(corrupt_package.iterdir()) == []


def test_a_full_disk_while_unpacking_is_one_clear_error(corrupt_package: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    def full(jar: Path, into: Path) -> None:
        into.mkdir()
        (into / "half").write_text("x")
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(postgres_binaries, "_unpack", full)
    with pytest.raises(UserError, match="No space left on device"):
        postgres_binaries.fetch()
    assert list(corrupt_package.iterdir()) == []  # the half-unpacked tree is gone


def fake_pgbench(directory: Path, version: str) -> Path:
    tool = directory / "pgbench"
    tool.write_text(f"#!/bin/sh\necho 'pgbench (PostgreSQL) {version}'\n")
    tool.chmod(0o755)
    return tool


def test_pgbench_of_a_newer_major_drives_the_server(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(postgres_binaries, "locate", lambda: (tmp_path, "test"))
    newer = fake_pgbench(tmp_path, "17.6")
    assert postgres_binaries.pgbench() == newer


def test_pgbench_of_an_older_major_is_passed_over(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(postgres_binaries, "locate", lambda: (tmp_path, "test"))
    old = fake_pgbench(tmp_path, "14.9")
    found = postgres_binaries.pgbench()
    assert found != old and (found is None or postgres_binaries.major(found) >= postgres_binaries.MAJOR)
