"""`make migrate` (bankbench.results.migration) on a fake run folder of before the schema versions:
it adds the keys every reader requires and nothing else, a second migration changes nothing, and a
record of a version this harness does not read is refused, on read and by the migration, saying
what to do."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import fake_records
import pytest

from bankbench import cli
from bankbench.errors import UserError
from bankbench.results import (
    documents,
    files,
    migration,
    runs,
    soak_record,
    startup_record,
    versions,
)
from bankbench.results.probes import Searches, Tuning

RUN_ID = "20261129T143545Z-native-capacity"
TUNED = {"go": {"pool": 16, "env": {"GOGC": "400"}}, "java": {"pool": 95, "env": {}}}
RATE = {"found": 300, "failed_at": 350, "confirmations": 2, "complete": True}
# What make capacity TUNED=both wrote before contenders had names: the services by key, the search
# bisected (`precision`), one service after another, no long level; java's tuned settings the shipped ones.
CAPACITY = {"target": fake_records.TARGET, "budget_s": 5400, "heaps_mb": [64], "precision": 0.05, "services": {
    "go": {"probes": [], "rate": RATE}, "java": {"probes": [], "rate": RATE}}, "tuned": {
    "go": {"probes": [], "rate": RATE}, "java": {"probes": [], "rate": RATE, runs.AS_SHIPPED: True}}}
# What make tune wrote before issue 69's duels and KNOBS=.
TUNING = {"protocol": runs.PAIRED, "budget_s": 7200, "pools": [16], "rate_share": 0.8, "services": {"go": {
    "rate": 240, "capacity": 300, "run": RUN_ID, "target": fake_records.TARGET, "probes": [], "knobs": [
        {"knob": "pool", "values": ["95", "16"], "chosen": "16", "complete": True, "duels": [
            {"incumbent": "95", "candidate": "16", "probes": [], "kept": True, "complete": True, "why": "a cut"}]}],
    "not_searched": [], "chosen": {"pool": "16"}, "tuned": {"pool": 16, "env": {}}}}}
SOAK = {"minutes": 30, "share": 0.8, "rate_source": RUN_ID, "placement": "split", "p99_ms": 50.0,
        "max_error_pct": 0.1, "tolerances": {}, "services": {}, "version": 1}
# What make pgwire wrote before the backends' CPU and the spread were counted.
PGWIRE = {"rate": 250, "levels": {"go-u250-p95-r1": {"pg_cpu_ms_per_request": 0.12, "backends": 40, "to_pg": {}}}}
OLD = {runs.CAPACITY_FILE: CAPACITY, runs.TUNING_FILE: TUNING, soak_record.SOAK_FILE: SOAK, files.PGWIRE: PGWIRE}


@pytest.fixture
def run_dir(tmp_path: Path, level_json: Callable[..., dict]) -> Path:
    """A run folder of manifest version 2 whose capacity.json, tuning.json, soak.json and
    pgwire.json have no schema_version, written as the harness writes them (files.write_json)."""
    path = tmp_path / "results" / "runs" / RUN_ID
    (path / "levels" / "go-u300-p95-r1").mkdir(parents=True)
    files.write_json(path / files.MANIFEST, fake_records.manifest(
        RUN_ID, "capacity", profile={"name": "capacity", "pools": [95], "tuned": TUNED},
        **{documents.WITH_TUNED: True}))
    files.write_json(path / "levels" / "go-u300-p95-r1" / files.LEVEL, level_json())
    for name, document in OLD.items():
        files.write_json(path / name, document)
    return path


def removed_lines(old: str, new: str) -> Counter[str]:
    """The lines of `old` that `new` changed or dropped: none where it only added keys."""
    return Counter(old.splitlines()) - Counter(new.splitlines())


def test_the_migration_adds_the_keys_every_reader_requires_and_no_other_change(run_dir: Path) -> None:
    old = {name: (run_dir / name).read_text() for name in OLD}
    assert migration.migrate_run(run_dir) == list(OLD)
    for name in (runs.CAPACITY_FILE, runs.TUNING_FILE):
        assert not removed_lines(old[name], (run_dir / name).read_text()), name
    capacity = json.loads((run_dir / runs.CAPACITY_FILE).read_text())
    assert next(iter(capacity)) == versions.KEY and capacity[versions.KEY] == versions.CAPACITY
    assert (capacity["design"], capacity["in_turn"], capacity["long_s"]) == (None, None, 0)
    named = {(section, key): (record["service"], record["contender"], record["pool"])
             for section in (runs.SHIPPED_SECTION, runs.TUNED_SECTION) for key, record in capacity[section].items()}
    assert named == {(runs.SHIPPED_SECTION, "go"): ("go", "go", 95),
                     (runs.SHIPPED_SECTION, "java"): ("java", "java", 95),
                     (runs.TUNED_SECTION, "go"): ("go", "go tuned", 16),
                     (runs.TUNED_SECTION, "java"): ("java", "java", 95)}  # as_shipped: the shipped record's copy
    assert capacity[runs.SHIPPED_SECTION]["go"]["rate"] == {**RATE, "staircase": None}
    searches = Searches.read(run_dir)
    assert (searches.in_turn, searches.contenders, searches.long_s) == (False, (), 0)  # not a pass: as before
    assert searches.tuned is not None and searches.tuned["go"].contender == "go tuned"
    tuning = json.loads((run_dir / runs.TUNING_FILE).read_text())
    assert tuning[versions.KEY] == versions.TUNING and tuning["duel"] is None
    go = Tuning.read(run_dir).services["go"]
    assert (go.carried, go.not_searched) == ({}, [])
    duel = go.knobs[0].duels[0]
    assert (duel.kept, duel.won, duel.effect, duel.confirms, duel.voided) == (True, None, None, False, ())
    soak = json.loads((run_dir / soak_record.SOAK_FILE).read_text())
    assert next(iter(soak)) == versions.KEY and "version" not in soak
    assert soak_record.read(run_dir).minutes == 30
    (level,) = files.pgwire(run_dir).levels.values()
    assert level == {**dict.fromkeys(migration.PGWIRE_ADDED), **PGWIRE["levels"]["go-u250-p95-r1"]}


def test_a_second_migration_changes_nothing(run_dir: Path, capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["migrate", str(run_dir.parent)]) == 0
    assert capsys.readouterr().out.endswith("1 of 1 run folders migrated; the others were of this schema already\n")
    written = {path: (path.read_bytes(), path.stat().st_mtime_ns) for path in run_dir.rglob("*") if path.is_file()}
    assert migration.migrate_run(run_dir) == []
    assert {path: (path.read_bytes(), path.stat().st_mtime_ns) for path in run_dir.rglob("*")
            if path.is_file()} == written


def test_a_record_of_another_version_is_refused_on_read_saying_what_to_do(run_dir: Path) -> None:
    with pytest.raises(UserError, match=rf"capacity\.json has no schema_version, this harness reads version "
                                        rf"{versions.CAPACITY}: run `make migrate`"):
        Searches.read(run_dir)
    migration.migrate_run(run_dir)
    files.write_json(run_dir / runs.TUNING_FILE, {**TUNING, versions.KEY: versions.TUNING + 1})
    with pytest.raises(UserError, match=rf"tuning\.json has schema_version {versions.TUNING + 1}, this harness "
                                        rf"reads version {versions.TUNING}: it was written by a newer harness"):
        Tuning.read(run_dir)
    with pytest.raises(UserError, match=rf"tuning\.json has schema_version {versions.TUNING + 1}: this harness "
                                        "migrates records from before versions"):
        migration.migrate_run(run_dir)
    manifest = json.loads((run_dir / files.MANIFEST).read_text())
    files.write_json(run_dir / files.MANIFEST, {**manifest, versions.KEY: 1})
    with pytest.raises(UserError, match=r"manifest\.json has schema_version 1, this harness reads version 2"):
        files.manifest(run_dir)
    with pytest.raises(UserError, match="brings run folders whose manifest is of version 2"):
        migration.migrate_run(run_dir)


def test_what_cannot_be_told_afterwards_is_refused(run_dir: Path) -> None:
    """A make tune run of the p99 sweeps; a level of layout 4, whose conversion is gone."""
    files.write_json(run_dir / runs.TUNING_FILE, {key: value for key, value in TUNING.items() if key != "protocol"})
    with pytest.raises(UserError, match=r"cannot migrate .*tuning\.json: a make tune run of protocol None"):
        migration.migrate_run(run_dir)
    files.write_json(run_dir / runs.TUNING_FILE, TUNING)
    (run_dir / "levels" / "go-u300-p95-r1" / "histograms.csv.gz").write_bytes(b"")
    with pytest.raises(UserError, match=r"histograms\.csv\.gz \(layout 4 or 5\)"):
        migration.migrate_run(run_dir)


def test_the_folders_being_written_are_left_out_unless_named(run_dir: Path) -> None:
    written = run_dir.with_name(run_dir.name + runs.INCOMPLETE)
    written.mkdir()
    files.write_json(written / files.MANIFEST, {})
    root = run_dir.parent.parent
    assert migration.run_folders(root) == [run_dir]
    assert migration.run_folders(written) == [written]


def test_make_startups_records_are_stamped_once_and_read(tmp_path: Path) -> None:
    old = {"created_utc": "20261128T123532Z", "git": {"commit": "abc", "dirty": False},
           "seconds": {"go": {"cold": [0.5, 0.6]}}}
    files.write_json(tmp_path / "20261128T123532Z.json", old)
    with pytest.raises(UserError, match="has no schema_version, this harness reads version 1: run `make migrate`"):
        startup_record.newest(tmp_path)
    assert migration.migrate_startups(tmp_path) == [tmp_path / "20261128T123532Z.json"]
    assert migration.migrate_startups(tmp_path) == []
    assert startup_record.newest(tmp_path) == startup_record.Startup("20261128T123532Z", "abc", old["seconds"])
