"""What one request cost PostgreSQL and the service, from make pgwire's newest run.

From pgwire.json (run.experiments.pg_capture): per service and pool, the median over its repeats of
each figure.

See docs/request-cost.md#how-it-is-measured-make-pgwire."""

import pandas as pd

from bankbench.results import files
from bankbench.results.runs import Run

FIGURES = ("pg_cpu_ms_per_request", "service_cpu_ms_per_request", "pg_backend_user_ms", "pg_backend_system_ms",
           "pg_background_ms", "softirq_ms", "backends", "backends_for_half", "same_backend_share",
           "pg_voluntary_switches")
MESSAGES = ("Parse", "Bind", "Execute", "Sync", "Simple query")  # sent to PostgreSQL, per request


def newest(selected: list[Run]) -> Run | None:
    return max((run for run in selected if (run.path / files.PGWIRE).is_file()), key=lambda run: run.id, default=None)


def per_service(run: Run) -> pd.DataFrame:
    """A row per service and pool, in the run's order: its rate, repeats, FIGURES and MESSAGES, and
    PostgreSQL's CPU per request of each repeat (a median of two hides one gone wrong)."""
    record = files.pgwire(run.path)
    levels = run.summary.set_index("level_id")[["service", "pool"]]
    rows = [{"service": levels.loc[level, "service"], "pool": int(levels.loc[level, "pool"]),
             **{name: figures.get(name) for name in FIGURES},
             **{name: figures["to_pg"].get(name, 0.0) for name in MESSAGES}}
            for level, figures in record.levels.items() if level in levels.index]
    frame = pd.DataFrame(rows)
    # A figure no level measured (null) is dropped.
    grouped = frame.dropna(axis=1, how="all").groupby(["service", "pool"], sort=False)
    return grouped.median().join(grouped.size().rename("repeats")) \
        .join(grouped["pg_cpu_ms_per_request"].agg(list).rename("pg_cpu_each")).reset_index() \
        .reindex(columns=[*frame.columns, "repeats", "pg_cpu_each"]).assign(rate=record.rate)
