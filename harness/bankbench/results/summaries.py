"""A run's summaries on disk (summary.json, summary.csv): written, found fresh and read here.

Each level's summary.json and the run's summary.csv (a row per level) are computed by
bankbench.analyse.levels and written here; every reader refuses another `SUMMARY_VERSION`.

See results/LAYOUT.md#summaryjson and results/LAYOUT.md#summarycsv."""

from collections.abc import Iterator
from pathlib import Path

import pandas as pd

from bankbench import registry
from bankbench.errors import UserError
from bankbench.results import files, histograms
from bankbench.results.files import read_json, write_json

LEVEL_KEYS = ("service", "users", "pool")
VALID = "loadgen.valid"  # summary.csv column: the load generator's verdict on the level
THROUGHPUT = "overall.throughput_rps"
# Version 2 added errors by status and service metrics; 3 per-second intervals and CPU placement;
# 4 the load generator's verdict (the same fields since they come from the histograms).
SUMMARY_VERSION = 4
ERRORS_BY_STATUS = "overall.errors_by_status."  # summary.csv column prefix, then the status
SERVICE_STATUSES = "service_metrics.requests_by_status."  # the same, as the service counted answers
ASSERTION, NO_RESPONSE = "assertion", "no response"  # errors_by_status keys besides HTTP codes
# Blocks a summary has only where the level measured them; without another, flatten's KeyError.
OPTIONAL_BLOCKS = ("efficiency", "seconds_ci", "service_metrics")
INPUTS = (files.LEVEL, histograms.FILE, files.METRICS, files.MONEY)  # a summary's inputs
OPTIONAL_INPUTS = (files.SERVICE_METRICS,)  # where the scraper wrote the service's figures


def write_level(level_dir: Path, summary: dict) -> dict:
    """Writes a level's summary.json, `summary` (analyse.levels.level_summary's) and the version; returns it."""
    document = {"summary_version": SUMMARY_VERSION, **summary}
    write_json(level_dir / "summary.json", document)
    return document


def fresh_level(level_dir: Path) -> dict | None:
    """A level's summary.json where it is of this version and newer than its inputs (`is_fresh`)."""
    found = read_json(level_dir / "summary.json") if is_fresh(level_dir) else {}
    return found if found.get("summary_version") == SUMMARY_VERSION else None


def write_run(run_dir: Path, rows: list[dict]) -> pd.DataFrame:
    """Writes summary.csv from the levels' `flatten`ed summaries, and summary.json; returns
    `read_summary`'s."""
    frame = pd.DataFrame(rows).sort_values([*LEVEL_KEYS, "repeat"], key=sort_key, ignore_index=True)
    # A status that one level had and another not: 0 there (where the level has the figures).
    statuses = [column for column in frame if column.startswith(ERRORS_BY_STATUS)]
    frame[statuses] = frame[statuses].fillna(0)
    if "service_metrics.scrapes" in frame:
        scraped = frame["service_metrics.scrapes"].notna()
        for column in [c for c in frame if c.startswith(SERVICE_STATUSES)]:
            frame.loc[scraped, column] = frame.loc[scraped, column].fillna(0)
    frame.to_csv(run_dir / "summary.csv", index=False)
    write_json(run_dir / "summary.json", {"summary_version": SUMMARY_VERSION, "levels": len(frame)})
    return read_summary(run_dir)


def read_summary(run_dir: Path) -> pd.DataFrame:
    """A summarized run's summary.csv; refuses a run without summaries or of another version."""
    redo = f"run `make summarize RUN={run_dir}`"
    path = run_dir / "summary.json"
    found = read_json(path).get("summary_version") if path.is_file() else None
    if found is None:
        raise UserError(f"{run_dir.name} has not been summarized: {redo}")
    if found != SUMMARY_VERSION:
        raise UserError(f"{run_dir.name} has summaries of version {found}, this harness reads "
                        f"version {SUMMARY_VERSION}: {redo}")
    frame = pd.read_csv(run_dir / "summary.csv", dtype={"loadgen.reasons": str})
    saturated = frame["resources.loadgen_saturated"]  # empty where a level had no figures
    frame["resources.loadgen_saturated"] = saturated.where(saturated.notna(), False).astype(bool)
    frame[VALID] = frame[VALID].astype(bool)
    frame["loadgen.reasons"] = frame["loadgen.reasons"].fillna("")
    return frame


def is_fresh(level_dir: Path) -> bool:
    """Whether summary.json is newer than every input it was computed from."""
    optional = [name for name in OPTIONAL_INPUTS if (level_dir / name).exists()]
    try:
        inputs = max((level_dir / name).stat().st_mtime for name in (*INPUTS, *optional))
        return (level_dir / "summary.json").stat().st_mtime > inputs
    except FileNotFoundError:
        return False


def flatten(summary: dict, level_id: str) -> dict:
    """One summary.csv row: level_id (folder name), scalar level.json keys, each block's figures."""
    row = {"level_id": level_id}
    row |= {key: value for key, value in summary["level"].items() if not isinstance(value, (dict, list))}
    for block in ("overall", "resources", "efficiency", "seconds_ci", "money_ok", "loadgen", "service_metrics"):
        row |= _dotted(block, summary.get(block, {}) if block in OPTIONAL_BLOCKS else summary[block])
    return row


def _dotted(key: str, value: object) -> dict:
    if not isinstance(value, dict):
        return {key: value}
    return {column: figure for inner, nested in value.items()
            for column, figure in _dotted(f"{key}.{inner}", nested).items()}


def label_summary(run_dir: Path, summary: pd.DataFrame) -> pd.DataFrame:
    """One row per (level, request label): the level's keys and verdicts, the label's figures."""
    return pd.DataFrame([
        {**level[["level_id", *LEVEL_KEYS, "repeat", "model", "money_ok", VALID]].to_dict(), "label": label, **stats}
        for _, level in summary.iterrows()
        for label, stats in read_json(files.level_dir(run_dir, level["level_id"]) / "summary.json")["labels"].items()
    ])


def status_columns(summary: pd.DataFrame) -> list[str]:
    """The summary's overall.errors_by_status.<status> columns, statuses in `status_order`."""
    return sorted((column for column in summary if column.startswith(ERRORS_BY_STATUS)),
                  key=lambda column: status_order(column.removeprefix(ERRORS_BY_STATUS)))


def status_order(status: str) -> tuple[int, str]:
    """Sort key of errors_by_status: HTTP codes in numeric order, then ASSERTION, then NO_RESPONSE."""
    return (int(status), "") if status.isdigit() else (10_000 + (status == NO_RESPONSE), status)


def has_service_metrics(summary: pd.DataFrame) -> bool:
    """Whether any level of a run has figures from the service's own metrics."""
    return "service_metrics.scrapes" in summary and bool(summary["service_metrics.scrapes"].gt(0).any())


def load_unit(summary: pd.DataFrame) -> str:
    """What a run's `users` count: iterations/s where every level ran the open model, else users."""
    return "iterations/s" if "model" in summary and summary["model"].eq("open").all() else "users"


def load_header(summary: pd.DataFrame) -> str:
    """The `users` column's header in a run's tables: users, or it/s (`load_unit`)."""
    return "users" if load_unit(summary) == "users" else "it/s"


def service_order(service: str) -> tuple[int, str]:
    """Sort key: the services of the registry in its order, any other after them."""
    known = registry.names()
    return (known.index(service) if service in known else len(known), service)


def by_service(frame: pd.DataFrame) -> Iterator[tuple[str, pd.DataFrame]]:
    """The rows of each service, services in `service_order`."""
    for service in sorted(frame["service"].unique(), key=service_order):
        yield service, frame[frame["service"] == service]


def sort_key(column: pd.Series) -> pd.Series:
    """A `sort_values(key=...)` putting services in `service_order`, other columns as they are."""
    if column.name != "service":
        return column
    rank = {service: i for i, service in enumerate(sorted(column.unique(), key=service_order))}
    return column.map(rank)
