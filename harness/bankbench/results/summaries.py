"""A run's summaries on disk (summary.json, summary.csv), and which repeats count.

Each level's summary.json and the run's summary.csv (a row per level) are written by `summarize` and
read by every reader, which refuses another `SUMMARY_VERSION`; and which repeats of a level count
(`verdicts`: bankbench.analyse.repeats aggregates them).

See results/LAYOUT.md#summaryjson and results/LAYOUT.md#summarycsv."""

from collections.abc import Iterator, Sequence
from pathlib import Path

import pandas as pd

from bankbench import registry
from bankbench.errors import UserError
from bankbench.results import files, levels
from bankbench.results.files import read_json, write_json

LEVEL_KEYS = ("service", "users", "pool")
VALID = "loadgen.valid"  # summary.csv column: the load generator's verdict on the level
THROUGHPUT = "overall.throughput_rps"
# A repeat's standing (`verdicts`): its figures count (""), or not: its money check failed, its
# load generator did not hold up, or did not hold up as the limit of a closed loop (`generator_bound`).
COUNTS, FAILED, INVALID, BOUND = "", "FAILED", "INVALID", "BOUND"
CLOSED_LOOP = "sustained"  # the load model without a planned rate (bankbench.load.profiles.LOAD_MODELS)
# Version 2 added errors by status and service metrics; 3 per-second intervals and CPU placement;
# 4 the load generator's verdict (the same fields since they come from the histograms).
SUMMARY_VERSION = 4
ERRORS_BY_STATUS = "overall.errors_by_status."  # summary.csv column prefix, then the status
SERVICE_STATUSES = "service_metrics.requests_by_status."  # the same, as the service counted answers
# Blocks a summary has only where the level measured them; without another, flatten's KeyError.
OPTIONAL_BLOCKS = ("efficiency", "seconds_ci", "service_metrics")


def summarize_level(level_dir: Path) -> dict:
    """Computes a level's summary.json from its files, writes it and returns it."""
    summary = {"summary_version": SUMMARY_VERSION, **levels.level_summary(level_dir)}
    write_json(level_dir / "summary.json", summary)
    return summary


def summarize_run(run_dir: Path, force: bool = False) -> pd.DataFrame:
    """Summarizes every level of a run (reusing a level's summary.json of this version and newer
    than its inputs, unless `force`), writes summary.csv and summary.json: `read_summary`'s."""
    if not (level_dirs := files.level_dirs(run_dir)):
        raise UserError(f"{run_dir} holds no levels/<level>/level.json: is it a run folder?")
    rows = [flatten(_summary(level_dir, force), level_dir.name) for level_dir in level_dirs]
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


def usable(frame: pd.DataFrame) -> pd.Series:
    """The rows whose figures count: the money check passed and the load generator held up."""
    return frame["money_ok"].astype(bool) & frame[VALID].astype(bool)


def generator_bound(frame: pd.DataFrame) -> pd.Series:
    """Rows whose throughput is a floor of the service's: money ok, the generator short, in the
    sustained model's closed loop (a user's next request waits for its last: a service that kept up
    serves at least that). Under a planned rate slow services cause a shortfall as often."""
    return frame["money_ok"].astype(bool) & ~frame[VALID].astype(bool) & frame["model"].eq(CLOSED_LOOP)


def floor(verdicts: Sequence[tuple[int, str]], values: Sequence[float]) -> float:
    """The lowest of a group's `values` (in `verdicts`' order, as repeats.aggregate_repeats gives
    them) whose repeat is BOUND: the service served at least that; NaN for none."""
    bound = [value for (_, mark), value in zip(verdicts, values, strict=True) if mark == BOUND and not pd.isna(value)]
    return min(bound, default=float("nan"))


def verdicts(frame: pd.DataFrame) -> pd.Series:
    """Per row: COUNTS (`usable`), FAILED (money check), BOUND (`generator_bound`) or INVALID."""
    standing = pd.Series(INVALID, index=frame.index, dtype=object)
    standing[usable(frame)] = COUNTS
    standing[~frame["money_ok"].astype(bool)] = FAILED
    standing[generator_bound(frame)] = BOUND
    return standing


def _summary(level_dir: Path, force: bool) -> dict:
    found = read_json(level_dir / "summary.json") if not force and is_fresh(level_dir) else {}
    return found if found.get("summary_version") == SUMMARY_VERSION else summarize_level(level_dir)


def is_fresh(level_dir: Path) -> bool:
    """Whether summary.json is newer than every input it was computed from."""
    optional = [name for name in levels.OPTIONAL_INPUTS if (level_dir / name).exists()]
    try:
        inputs = max((level_dir / name).stat().st_mtime for name in (*levels.INPUTS, *optional))
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
                  key=lambda column: levels.status_order(column.removeprefix(ERRORS_BY_STATUS)))


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
