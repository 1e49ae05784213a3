"""Reading and writing a run's JSON and measured CSV files (results/LAYOUT.md), with only the
columns the analysis needs; the load generator's requests are bankbench.results.histograms'."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from bankbench.errors import UserError

METRIC_DTYPES = {
    "t_ms": "int64",
    "service_cpu_pct": "float32",
    "service_rss_mb": "float32",
    "pg_cpu_pct": "float32",
    "pg_rss_mb": "float32",
    "loadgen_cpu_pct": "float32",
    "machine_cpu_pct": "float32",
}
# The service's own figures as a level keeps them: the scraper's service_metrics.csv, compressed
# when the level ends (bankbench.results.compaction).
SERVICE_METRICS = "service_metrics.csv.xz"
SERVICE_METRIC_DTYPES = {"t_ms": "int64", "series": "category", "value": "float64"}


def read_json(path: Path) -> dict:
    """The JSON object in `path`; a missing or broken file is the user's to fix."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise UserError(f"cannot read {path}: {err}") from err


def write_json(path: Path, value: dict) -> None:
    """Writes `value` as indented JSON, the way every results file is written."""
    path.write_text(json.dumps(value, indent=2) + "\n")


def read_metrics(path: Path) -> pd.DataFrame:
    """Per-second resource samples (metrics.csv), every column of the layout."""
    return _read_csv(path, METRIC_DTYPES)


def read_service_metrics(path: Path) -> pd.DataFrame:
    """The service's own figures (service_metrics.csv), one row per scrape: `t_ms`, then a column
    per series (`up`, the keys of api/metrics.yaml, `requests_<status>`), NaN where a scrape has
    none (a failed one has only `up` = 0)."""
    long = _read_csv(path, SERVICE_METRIC_DTYPES)
    wide = long.pivot_table(index="t_ms", columns="series", values="value", aggfunc="last", observed=True)
    return wide.rename_axis(columns=None).reset_index()


def _read_csv(path: Path, dtypes: dict[str, str]) -> pd.DataFrame:
    try:
        # Compression is inferred from the name; the C parser copes with JMeter's quoted messages.
        return pd.read_csv(path, usecols=list(dtypes), dtype=dtypes)
    except (OSError, ValueError) as err:  # missing file or column, unparsable value
        raise UserError(f"cannot read {path}: {err}") from err
