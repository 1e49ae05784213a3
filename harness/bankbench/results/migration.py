"""`make migrate`: run folders brought once to the schema versions this harness reads.

Per run folder: its manifest must be of results.versions' version already (nothing written since
needs more: a folder older than that is to be run again); a level the runner left uncompacted is
compacted, one of layout 4 or 5 refused (their conversion is gone); capacity.json, tuning.json,
soak.json and pgwire.json without a `schema_version` get every key their readers require, each
with the value that says what the run did, and the version; then every record is read back. make
startup's records (results/startup/) get their version, their keys being the same. A record of its version is
left as it is, so that a second migration writes nothing; no file a summary is computed from
changes, so that every summary rebuilds as it was.

See results/LAYOUT.md#schema-versions."""

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bankbench.errors import UserError
from bankbench.results import compaction, files, runs, soak_record, startup_record, versions
from bankbench.results.documents import Manifest
from bankbench.results.probes import Searches, Tuning

# The files of layouts 4 and 5, which the harness of LAST_CONVERTER converts (`make summarize`).
OLD_LAYOUTS = ("histograms.csv.gz", "service_metrics.csv.gz")
LAST_CONVERTER = "dcf139eb"
# The keys a duel of the runs before issue 69 lacks, with what they are there: no verdict of its
# own (`kept` was it), no effect figures, no probe voided, no second duel.
OLD_DUEL: dict[str, object] = {"voided": [], "won": None, "effect": None, "low": None, "high": None, "detectable": None,
            "confirms": False}
SOAK_KEY = "version"  # soak.json's before `schema_version`: the same number
# The figures a level of pgwire.json gained after make pgwire's first runs: null (not measured) there.
PGWIRE_ADDED = ("pg_backend_user_ms", "pg_backend_system_ms", "pg_background_ms", "softirq_ms",
                "backends_for_half", "same_backend_share")


def run_folders(folder: Path) -> list[Path]:
    """`folder` if it is a run folder, else every run folder under it, those being written or
    interrupted (runs.INCOMPLETE) left out: name one to migrate it."""
    if not folder.is_dir():
        raise UserError(f"{folder} is not a folder")
    if (folder / files.MANIFEST).is_file():
        return [folder]
    return sorted(path.parent for path in folder.rglob(files.MANIFEST)
                  if not path.parent.name.endswith(runs.INCOMPLETE))


def migrate_run(run_dir: Path) -> list[str]:
    """Brings `run_dir` to this harness's schema (module doc); the names of the files it rewrote."""
    manifest = _manifest(run_dir)
    for level_dir in files.level_dirs(run_dir):
        if old := [name for name in OLD_LAYOUTS if (level_dir / name).exists()]:
            raise UserError(f"{level_dir} holds {', '.join(old)} (layout 4 or 5), which this harness no longer "
                            f"converts: run `make summarize RUN={run_dir}` with the harness of commit "
                            f"{LAST_CONVERTER} first")
    compaction.compact_run(run_dir)
    rewritten: list[str] = []
    for name, (version, upgrade, read) in RECORDS.items():
        if (run_dir / name).is_file():
            if _upgraded(run_dir, name, version, upgrade, manifest):
                rewritten.append(name)
            read(run_dir)  # read back: every key a reader requires is there
    for level_dir in files.level_dirs(run_dir):
        files.level_record(level_dir)
    return rewritten


def _manifest(run_dir: Path) -> Manifest:
    """The run's manifest, of the version this harness reads: no other can be migrated."""
    path = run_dir / files.MANIFEST
    if (document := files.read_json(path)).get(versions.KEY) != versions.MANIFEST:
        raise UserError(f"{path} has {versions.described(document)}: `make migrate` brings run folders whose "
                        f"manifest is of version {versions.MANIFEST} to this harness's schema, no other (run it "
                        "again, or read it with a harness of its time)")
    return Manifest.of(document)


def _upgraded(run_dir: Path, name: str, version: int, upgrade: Callable[[dict, Manifest], dict],
              manifest: Manifest) -> bool:
    """Rewrites the record `name` of a version from before versions at `version`; False: it is of it."""
    path = run_dir / name
    document = files.read_json(path)
    if document.get(versions.KEY) == version:
        return False
    if versions.KEY in document:
        raise UserError(f"{path} has {versions.described(document)}: this harness migrates records from "
                        f"before versions to version {version}, and reads no other")
    try:
        upgraded = upgrade(document, manifest)
    except KeyError as err:
        raise UserError(f"cannot migrate {path}: it has no {err}") from err
    except UserError as err:
        raise UserError(f"cannot migrate {path}: {err}") from err
    files.write_record(run_dir, name, versions.stamped(upgraded, version))
    return True


def capacity(document: dict, manifest: Manifest) -> dict:
    """capacity.json from before versions: each contender named as `make capacity` names it (its
    key is its service: runs before the A/A twin and the pools beside), with the pool it ran with
    (capacity_search.Contender.pool_in); `design` null where the search bisected (its `precision`),
    `in_turn` null where it searched one service after another, `long_s` 0 where it ran no long level."""
    everyone = bool(manifest.tuned)  # TUNED=1: every contender at its tuned settings

    def named(section: str, key: str) -> dict:
        tuned = section == runs.TUNED_SECTION or everyone
        return {"service": key, "contender": f"{key} tuned" if tuned else key,
                "pool": manifest.with_tuned[key].pool if tuned else manifest.recorded_profile["pools"][0]}

    def contender(section: str, key: str, old: dict) -> dict:
        if "service" in old:
            return old
        # A tuned contender probed once, as shipped, is a copy of the shipped record.
        found = {**named(runs.SHIPPED_SECTION if old.get(runs.AS_SHIPPED) else section, key), **old}
        if "rate" in found:  # the staircase's estimate: none where the search bisected
            found["rate"] = _inserted(found["rate"], {"staircase": None}, "complete")
        return found

    sections = {name: {key: contender(name, key, old) for key, old in document[name].items()}
                for name in (runs.SHIPPED_SECTION, runs.TUNED_SECTION) if name in document}
    added = {"design": None, "in_turn": None, "long_s": 0}
    return _inserted({**document, **sections}, added, runs.SHIPPED_SECTION)


def tuning(document: dict, _manifest: Manifest) -> dict:
    """tuning.json from before versions: of the duels' protocol only (a run that swept each value's
    p99 is not read); `duel` null (a value was kept where its median beat the incumbent's by more
    than the probes' spread), each service's `carried` {} (none: runs before KNOBS=), each duel's
    OLD_DUEL keys. Its `not_searched` must be there: it cannot be told afterwards."""
    if (protocol := document.get("protocol")) != runs.PAIRED:
        raise UserError(f"a make tune run of protocol {protocol} (each value's p99 swept at one rate): this harness "
                        "reads the duels only; take the folder out of results/ (git keeps it)")
    if unknown := [name for name, old in document["services"].items() if "not_searched" not in old]:
        raise UserError(f"no `not_searched` in the records of {', '.join(unknown)}: the knobs the run left are "
                        "not to be guessed")

    def duels(old: dict) -> dict:
        return {**old, "duels": [_inserted(duel, OLD_DUEL, "kept") for duel in old["duels"]]}

    def service(old: dict) -> dict:
        return _inserted({**old, "knobs": [duels(knob) for knob in old["knobs"]]}, {"carried": {}}, "knobs")

    services = {name: service(old) for name, old in document["services"].items()}
    return _inserted({**document, "services": services}, {"duel": None}, "budget_s")


def soak(document: dict, _manifest: Manifest) -> dict:
    """soak.json from before versions: its `version` (1) becomes `schema_version`."""
    if document[SOAK_KEY] != versions.SOAK:
        raise UserError(f"its {SOAK_KEY} is {document[SOAK_KEY]}: this harness reads {versions.SOAK}")
    return {key: value for key, value in document.items() if key != SOAK_KEY}


def pgwire(document: dict, _manifest: Manifest) -> dict:
    """pgwire.json from before versions: each level with PGWIRE_ADDED, null where it has none."""
    levels = {level: {**dict.fromkeys(PGWIRE_ADDED), **figures} for level, figures in document["levels"].items()}
    return {**document, "levels": levels}


# Per record: its version, how one from before versions is brought to it, and its reader.
RECORDS: dict[str, tuple[int, Callable[[dict, Manifest], dict], Callable[[Path], Any]]] = {
    runs.CAPACITY_FILE: (versions.CAPACITY, capacity, Searches.read),
    runs.TUNING_FILE: (versions.TUNING, tuning, Tuning.read),
    soak_record.SOAK_FILE: (versions.SOAK, soak, soak_record.read),
    files.PGWIRE: (versions.PGWIRE, pgwire, files.pgwire),
}


def migrate_startups(folder: Path = startup_record.FOLDER) -> list[Path]:
    """make startup's records without a version, stamped (module doc); the paths it rewrote."""
    rewritten = []
    for path in startup_record.records(folder):
        if versions.KEY not in (document := files.read_json(path)):
            files.write_json(path, versions.stamped(document, versions.STARTUP))
            rewritten.append(path)
        versions.check(path, files.read_json(path), versions.STARTUP)
    return rewritten


def _inserted(document: dict, added: dict, before: str) -> dict:
    """`document` with each key of `added` it lacks, in `added`'s order before the key `before` (at
    the end where it has none), where the harness writes them."""
    missing = {key: value for key, value in added.items() if key not in document}
    keys = list(document)
    at = keys.index(before) if before in document else len(keys)
    return {**{key: document[key] for key in keys[:at]}, **missing, **{key: document[key] for key in keys[at:]}}
