"""Report tables as DataFrames of text: shown as they are in the notebook, as Markdown in the README.

Figures read `median [low-high]`: the median over the repeats whose money check passed and its
95 % interval (bankbench.analyse.stats); FAILED where none passed (see `formatting.spread_column`).
"""

from __future__ import annotations

import pandas as pd

from bankbench.analyse import analysis, formatting
from bankbench.analyse.formatting import count, number
from bankbench.analyse.rawdata import read_json
from bankbench.analyse.runs import Run

# latency_stats figure -> (header, format), in the order the tables show them
LATENCY = {
    "requests": ("requests", count),
    "throughput_rps": ("req/s", number),
    "mean_ms": ("mean ms", number),
    "p50_ms": ("p50 ms", number),
    "p90_ms": ("p90 ms", number),
    "p99_ms": ("p99 ms", number),
    "max_ms": ("max ms", number),
    "error_pct": ("err %", number),
}
RESOURCES = {
    "resources.service_cpu_mean": ("CPU mean %", number),
    "resources.service_cpu_max": ("CPU max %", number),
    "resources.service_rss_mean_mb": ("RSS mean MB", number),
    "resources.service_rss_max_mb": ("RSS max MB", number),
}
LEVEL_COLUMNS = {f"overall.{name}": spec for name, spec in LATENCY.items()} | RESOURCES
THEN_AND_NOW = {"mean_ms": "mean ms", "p99_ms": "p99 ms", "error_pct": "err %"}
ERRORS_BY_STATUS = "errors by status"  # header of the levels table's breakdown of the failed requests
LOAD_GENERATOR = "load generator"  # header of the levels table's verdict on the generator


def levels(summary: pd.DataFrame) -> pd.DataFrame:
    """Per service x users (x pool): requests, throughput, latency, errors (and by status),
    service CPU and RSS, and the load generator's verdict."""
    keys, statuses = ["service", *analysis.row_keys(summary)], analysis.status_columns(summary)
    aggregated = analysis.aggregate_repeats(summary, [*LEVEL_COLUMNS, *statuses])
    aggregated = aggregated.sort_values(keys, key=analysis.sort_key).reset_index(drop=True)
    table = _text(aggregated, keys, LEVEL_COLUMNS)
    table.insert(table.columns.get_loc(LATENCY["error_pct"][0]) + 1, ERRORS_BY_STATUS,
                 _by_status(aggregated, statuses))
    table[LOAD_GENERATOR] = _generator(summary, aggregated, keys)
    return table


def _generator(summary: pd.DataFrame, aggregated: pd.DataFrame, keys: list[str]) -> pd.Series:
    """`ok`, or `INVALID r2: <reasons>` for each repeat whose load generator did not hold up
    (bankbench.load.generator); the cells in the order of `aggregated`."""
    invalid = summary[~summary[analysis.VALID]]
    reasons = {key: "; ".join(f"INVALID r{row['repeat']}: {row['loadgen.reasons']}" for _, row in rows.iterrows())
               for key, rows in invalid.groupby(keys)}
    return pd.Series([reasons.get(tuple(row), "ok") for row in aggregated[keys].itertuples(index=False)],
                     index=aggregated.index, dtype=object)


def _by_status(aggregated: pd.DataFrame, columns: list[str]) -> pd.Series:
    """`503: 12; assertion: 1` cells: the failed requests of each status that some passed repeat
    had (median [95 % interval]), "-" for none."""
    cells = {column: formatting.spread_column(aggregated, column, count) for column in columns}
    def cell(i: int) -> str:
        parts = [f"{column.removeprefix(analysis.ERRORS_BY_STATUS)}: {cells[column][i]}"
                 for column in columns if aggregated.loc[i, [column, f"{column}.high"]].max() > 0]
        return "; ".join(parts) or "-"
    return pd.Series([cell(i) for i in aggregated.index], index=aggregated.index, dtype=object)


def labels(run: Run) -> tuple[int, pd.DataFrame]:
    """The largest user count at the main pool, and the per-label figures of its levels."""
    per_label = analysis.label_summary(run.path, run.summary)
    at_pool = per_label[per_label["pool"] == analysis.main_pool(run.summary)]
    users = int(at_pool["users"].max())
    aggregated = analysis.aggregate_repeats(at_pool[at_pool["users"] == users], list(LATENCY),
                                            keys=["service", "label"])
    return users, _text(aggregated, ["service", "label"], LATENCY)


def environments(runs: list[Run]) -> dict[str, pd.DataFrame]:
    """For each profile run in more than one environment (native, compose...): each service and
    level's throughput, p99, errors and service CPU, one row per environment."""
    columns = {f"overall.{name}": LATENCY[name] for name in ("throughput_rps", "p99_ms", "error_pct")}
    columns["resources.service_cpu_mean"] = RESOURCES["resources.service_cpu_mean"]
    by_profile: dict[str, list[Run]] = {}
    for run in runs:
        by_profile.setdefault(run.profile, []).append(run)
    tables = {}
    for profile, group in by_profile.items():
        if len({run.manifest.get("env") for run in group}) > 1:
            aggregated = pd.concat([analysis.aggregate_repeats(run.summary, list(columns))
                                    .assign(env=run.manifest.get("env", "")) for run in group],
                                   ignore_index=True)
            tables[profile] = _text(aggregated, ["service", "users", "pool", "env"], columns)
    return tables


def _text(aggregated: pd.DataFrame, keys: list[str], columns: dict) -> pd.DataFrame:
    """Key columns, repeats, then one text column per figure, the first telling failed repeats."""
    aggregated = aggregated.sort_values(keys, key=analysis.sort_key).reset_index(drop=True)
    table = aggregated[keys].copy()
    table["repeats"] = aggregated["repeats"]
    for i, (column, (header, fmt)) in enumerate(columns.items()):
        table[header] = formatting.spread_column(aggregated, column, fmt, mark_failed=i == 0)
    return table


def context(manifest: dict) -> pd.DataFrame:
    """What a run was measured on, from its manifest: machine, commit, versions, settings."""
    git, machine = manifest.get("git", {}), manifest.get("machine", {})
    rows = [
        ("run", manifest.get("run_id")),
        ("created (UTC)", manifest.get("created_utc")),
        ("environment", manifest.get("env")),
        ("commit", f"{git.get('commit', '?')[:12]}{' (dirty tree)' if git.get('dirty') else ''}"),
        ("CPU", f"{machine.get('cpu_model')}, {machine.get('cores')} cores"),
        ("memory", f"{machine.get('memory_gb')} GB"),
        ("OS", f"{machine.get('os')}, kernel {machine.get('kernel')}"),
        *((f"version: {name}", value) for name, value in manifest.get("versions", {}).items()),
        *((f"setting: {name}", _flat(value)) for name, value in manifest.get("settings", {}).items()),
    ]
    return pd.DataFrame(rows, columns=["item", "value"])


def _flat(value: object) -> str:
    """A setting on one line: dicts as `key=value; ...`, lists comma-separated."""
    if isinstance(value, dict):
        return "; ".join(f"{key}={_flat(item)}" for key, item in value.items())
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)


def money_failures(run: Run) -> pd.DataFrame:
    """The levels whose money check failed, with what the check found (empty when all passed)."""
    failed = run.summary.loc[~run.summary["money_ok"].astype(bool), "level_id"]
    checks = [{"level": level, **read_json(run.level_dir(level) / "money.json")} for level in failed]
    return pd.DataFrame(checks, columns=["level", "ok", "clients", "sum_balances", "sum_deposits",
                                         "ledger_mismatches", "negative_balances"])


def then_and_now(summary: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    """Each published study next to this run (main pool), at the published user counts."""
    at_pool = summary[summary["pool"] == analysis.main_pool(summary)]
    now = analysis.aggregate_repeats(at_pool, [f"overall.{name}" for name in THEN_AND_NOW])
    ours = now[["users", "service"]].copy()
    for name, header in THEN_AND_NOW.items():
        ours[f"this run {header}"] = formatting.spread_column(now, f"overall.{name}")
    theirs = _published(published)
    merged = theirs.merge(ours, on=["users", "service"], how="outer")
    merged = merged[merged["users"].isin(published["users"])]
    merged = merged.fillna(dict.fromkeys(theirs, "-")).fillna("not run")
    return merged.sort_values(["users", "service"], key=analysis.sort_key, ignore_index=True)


def _published(published: pd.DataFrame) -> pd.DataFrame:
    """One row per users x service, a column per study and figure it published."""
    wide = published.pivot(index=["users", "service"], columns="study", values=list(THEN_AND_NOW))
    shown = [(name, study) for study in published["study"].unique() for name in THEN_AND_NOW
             if wide[(name, study)].notna().any()]
    wide = wide[shown]
    wide.columns = [f"{study} {THEN_AND_NOW[name]}" for name, study in shown]
    return wide.reset_index()
