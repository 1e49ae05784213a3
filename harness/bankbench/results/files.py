"""The files of a run folder and of its levels, read and written here alone.

Their layout: results/LAYOUT.md. CSVs are read with only the columns the analysis needs (the
requests: results.histograms)."""

import json
from pathlib import Path

import pandas as pd

from bankbench.bank.money import Check
from bankbench.checks.verify import Findings
from bankbench.errors import UserError
from bankbench.measure.resources import COLUMNS
from bankbench.results import versions
from bankbench.results.documents import LevelRecord, Manifest, Pgwire

METRIC_DTYPES = {column: "int64" if column == "t_ms" else "float32" for column in COLUMNS}
# A run folder's files.
MANIFEST = "manifest.json"
VERIFY = "verify.json"  # the check before the first level: its findings
PGWIRE = "pgwire.json"  # what one request cost PostgreSQL (bankbench.run.experiments.pg_capture)
CALIBRATION = "calibration.json"
LEVELS = "levels"
# A level folder's files.
LEVEL = "level.json"
MONEY = "money.json"
METRICS = "metrics.csv"
SERVICE_LOG = "service.log"
CHAOS = "chaos.json"  # the faults struck during the level, with their bursts
PG_CAPTURE = "pg.pcap"  # make pgwire's capture of PostgreSQL's port during the level (not committed)
# The service's own figures: the scraper's service_metrics.csv, compressed when the level ends.
SCRAPES = "service_metrics.csv"
SERVICE_METRICS = SCRAPES + ".xz"
SERVICE_METRIC_DTYPES = {"t_ms": "int64", "series": "category", "value": "float64"}


def read_json(path: Path) -> dict:
    """The JSON object in `path`; a missing or broken file is the user's to fix."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise UserError(f"cannot read {path}: {err}") from err


def write_json(path: Path, value: dict | list) -> None:
    """Writes `value` as indented JSON, the way every results file is written."""
    path.write_text(json.dumps(value, indent=2) + "\n")


def manifest(run_dir: Path) -> Manifest:
    """The run's context: commit, versions, machine, settings (bankbench.measure.manifest), of the
    run folder's schema version (results.versions: its level.json files' too)."""
    path = run_dir / MANIFEST
    return Manifest.of(versions.check(path, read_json(path), versions.MANIFEST))


def write_manifest(run_dir: Path, manifest: Manifest) -> None:
    """Writes the manifest, of the run folder's schema version (results.versions)."""
    write_json(run_dir / MANIFEST, versions.stamped(manifest.document, versions.MANIFEST))


def level_dir(run_dir: Path, level_id: str) -> Path:
    """The folder of one level of a run, by its id (go-u1000-p95-r1)."""
    return run_dir / LEVELS / level_id


def level_dirs(run_dir: Path) -> list[Path]:
    """The run's level folders that hold a level, in the order of their ids."""
    return sorted(p for p in (run_dir / LEVELS).glob("*") if (p / LEVEL).is_file())


def level_record(level_dir: Path) -> LevelRecord:
    """What the level ran (level.json)."""
    return LevelRecord.of(read_json(level_dir / LEVEL))


def write_level_record(level_dir: Path, record: LevelRecord) -> None:
    write_json(level_dir / LEVEL, record.document)


def money(level_dir: Path) -> Check | None:
    """The money check after the level; None for a level that has none."""
    return Check.of(read_json(level_dir / MONEY)) if (level_dir / MONEY).is_file() else None


def money_ok(level_dir: Path) -> bool:
    """Whether the money check after the level passed; a level without one: UserError."""
    if (check := money(level_dir)) is None:
        raise UserError(f"{level_dir} has no {MONEY}: the level did not end")
    return check.ok


def write_money(level_dir: Path, check: Check) -> None:
    write_json(level_dir / MONEY, check.document)


def verify(run_dir: Path) -> Findings | None:
    """`make verify`'s findings before the run's first level; None for a run without them."""
    return Findings(**read_json(run_dir / VERIFY)) if (run_dir / VERIFY).is_file() else None


def record(run_dir: Path, name: str, version: int | None = None) -> dict:
    """An experiment's record in the run folder (capacity.json, tuning.json: results.runs), refused
    unless of `version` (results.versions) where one is given."""
    path = run_dir / name
    return read_json(path) if version is None else versions.check(path, read_json(path), version)


def write_record(run_dir: Path, name: str, document: dict) -> None:
    write_json(run_dir / name, document)


def pgwire(run_dir: Path) -> Pgwire:
    """make pgwire's record (pgwire.json): its rate and per level what one request cost."""
    return Pgwire.of(record(run_dir, PGWIRE, versions.PGWIRE))


def write_pgwire(run_dir: Path, document: dict) -> None:
    write_record(run_dir, PGWIRE, versions.stamped(document, versions.PGWIRE))


def metrics_path(level_dir: Path) -> Path:
    """Where the resource sampler writes its per-second rows (bankbench.measure.resources)."""
    return level_dir / METRICS


def has_metrics(level_dir: Path) -> bool:
    """On AWS the resources come when the run closes: until then a level has none."""
    return (level_dir / METRICS).exists()


def read_metrics(level_dir: Path) -> pd.DataFrame:
    """Per-second resource samples (metrics.csv), every column of the layout."""
    return read_csv(level_dir / METRICS, METRIC_DTYPES)


def scrapes_path(level_dir: Path) -> Path:
    """Where the scraper appends the service's figures during the level (bankbench.measure.scrape)."""
    return level_dir / SCRAPES


def staged_capture_path(run_dir: Path, level_id: str) -> Path:
    """Where a level's capture is written while the level runs, before its folder exists."""
    return run_dir / f"{level_id}-{PG_CAPTURE}"


def has_service_metrics(level_dir: Path) -> bool:
    """Whether the scraper wrote the service's own figures for the level."""
    return (level_dir / SERVICE_METRICS).exists()


def read_service_metrics(level_dir: Path) -> pd.DataFrame:
    """The service's own figures, a row per scrape: `t_ms`, then a column per series (`up`, the
    keys of api/metrics.yaml, `requests_<status>`), NaN where a scrape has none (failed: `up` 0)."""
    long = read_csv(level_dir / SERVICE_METRICS, SERVICE_METRIC_DTYPES)
    wide = long.pivot_table(index="t_ms", columns="series", values="value", aggfunc="last", observed=True)
    return wide.rename_axis(columns=None).reset_index()


def read_csv(path: Path, dtypes: dict[str, str], all_columns: bool = False, **options) -> pd.DataFrame:
    """`path`'s `dtypes` columns (or all its columns); a missing or broken file: UserError."""
    try:
        # Compression is inferred from the name; the C parser copes with JMeter's quoted messages.
        return pd.read_csv(path, usecols=None if all_columns else list(dtypes), dtype=dtypes, **options)
    except (OSError, ValueError) as err:  # missing file or column, unparsable value
        raise UserError(f"cannot read {path}: {err}") from err
