"""Whether a service held up past its capacity (make overload), second by second.

A level whose arrivals came in phases (profile overload), second by second from its measured
window (the warm-up is negative), and whether its service held up past its capacity (issue 35,
`Outcome.misses`): not exit, keep its RSS within its registry entry's bound (services.yaml
`memory_mb` over its heap cap), answer only 200, 422 or 503, keep its 200s' p99 during the overload
(every phase above 1x the base rate) within the acquire timeout and back under RECOVERY_P99_MS
within RECOVERY_MAX_S of its end, and lose no money.

See docs/benchmarks.md#past-capacity-make-overload."""

from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from bankbench import config, registry
from bankbench.analyse.levels import Phase, per_second_percentiles, phases
from bankbench.bank import processes
from bankbench.errors import UserError
from bankbench.results import files, histograms
from bankbench.results.documents import NOT_RECORDED, LevelRecord, Manifest
from bankbench.results.probes import P99_MS
from bankbench.results.runs import Run
from bankbench.results.summaries import NO_RESPONSE, VALID, status_order

ALLOWED = ("200", "422", "503")  # the answers a service past its capacity may give
OK, REFUSED = "200", "503"
RECOVERY_P99_MS = P99_MS  # the latency target of make capacity, for the 200s after the overload
RECOVERY_MAX_S = 10  # seconds after the overload's end by which the 200s' p99 must be back under it
STEADY_S = 5  # seconds the 200s' p99 stays under it to count as recovered (not one quiet second)
# The service's own series per second (api/metrics.yaml) -> column of the timeline, with its unit.
SERVICE_SERIES = {"concurrent_requests": ("in_flight", 1), "pool_pending": ("pool_pending", 1),
                  "heap_bytes": ("heap_mb", 2**20)}
GAUGES = [column for column, _ in SERVICE_SERIES.values()] + ["rss_mb"]  # and metrics.csv's RSS
# summary.csv: the 503s the service counted, its pool's acquire timeouts, the connections it opened
ANSWERED_503, TIMEOUTS, CREATED = (f"service_metrics.{name}" for name in (
    "requests_by_status.503", "pool_timeouts", "pool_created"))


@dataclass(frozen=True)
class Timeline:
    """A phased level per second."""

    service: str
    level_id: str
    frame: pd.DataFrame  # requests offered, answered; the 200s' p50, p99; GAUGES (NaN: unmeasured)
    answers: pd.DataFrame  # the requests per answer ("200", NO_RESPONSE ...)
    phases: tuple[Phase, ...]

    @property
    def overload(self) -> tuple[int, int] | None:
        """The seconds [start, end) of the phases from the first above the base rate (or None)."""
        above = [phase for phase in self.phases if phase.multiple > 1]
        return (above[0].start_s, above[-1].end_s) if above else None

    @property
    def end_s(self) -> int:
        return self.phases[-1].end_s


def is_phased(level: LevelRecord) -> bool:
    return bool(level.phases)


def is_phased_run(run: Run) -> bool:
    """A run past capacity (make overload): a phase above 1x; make soak's one phase below it is not."""
    return any(multiple > 1 for _, multiple in run.settings.get("phases") or ())


def timeline(level_dir: Path) -> Timeline:
    return _timeline(level_dir, *_read(level_dir))


def _read(level_dir: Path) -> tuple[LevelRecord, histograms.Histograms]:
    level = files.level_record(level_dir)
    if not is_phased(level):
        raise UserError(f"{level_dir} is not a level with phases (profile overload)")
    return level, histograms.read(level_dir / histograms.FILE)


def _timeline(level_dir: Path, level: LevelRecord, requests: histograms.Histograms) -> Timeline:
    rows = requests.rows.assign(answer=answer(requests.rows["status"]))
    answers = rows.pivot_table(index="second", columns="answer", values="requests", aggfunc="sum",
                               fill_value=0, observed=True).rename_axis(columns=None)
    frame = rows.groupby("second")[["iterations", "requests"]].sum().assign(
        answered=answers.drop(columns=NO_RESPONSE, errors="ignore").sum(axis=1)).join(
        per_second_percentiles(requests, rows.index[rows["status"] == OK]))
    seconds = pd.RangeIndex(min(frame.index.min(), 0), max(frame.index.max(), phases(level)[-1].end_s - 1) + 1)
    frame = frame.reindex(seconds).fillna({"iterations": 0, "requests": 0, "answered": 0})
    frame = frame.join(_service_seconds(level_dir, level.measure_from_ms))
    # A second the once-a-second readings skipped (their clocks drift) shows the one before.
    frame[GAUGES] = frame[GAUGES].ffill(limit=1)
    return Timeline(level.service, level_dir.name, frame.rename_axis("second"),
                    answers.reindex(seconds, fill_value=0).rename_axis("second"), phases(level))


def answer(status: pd.Series) -> pd.Series:
    """The answer a request got: its HTTP status, or NO_RESPONSE (bankbench.results.summaries)."""
    text = status.astype("string").str.strip()
    return text.where(text.str.isdigit(), NO_RESPONSE)


def _service_seconds(level_dir: Path, measure_from_ms: int) -> pd.DataFrame:
    """GAUGES per second of the measured window: the last reading in each second (none: NaN)."""
    parts = []
    if files.has_service_metrics(level_dir):
        scraped = files.read_service_metrics(level_dir)
        parts.append(pd.DataFrame({column: scraped[series] / unit if series in scraped else np.nan
                                   for series, (column, unit) in SERVICE_SERIES.items()}).assign(t_ms=scraped["t_ms"]))
    if files.has_metrics(level_dir):
        measured = files.read_metrics(level_dir)
        parts.append(measured[["t_ms"]].assign(rss_mb=measured["service_rss_mb"].astype("float64")))
    if not parts:
        return pd.DataFrame(columns=GAUGES, dtype="float64")
    per_second = [part.groupby((part.pop("t_ms") - measure_from_ms) // 1000).last() for part in parts]
    return pd.concat(per_second, axis=1).reindex(columns=GAUGES)


def recovery_s(p99_ms: pd.Series, overload_end_s: int, last_s: int, target_ms: float = RECOVERY_P99_MS,
               steady_s: int = STEADY_S) -> int | None:
    """Seconds from `overload_end_s` to the first second from which the 200s' p99 (NaN: no 200)
    stays at or under `target_ms` for `steady_s` seconds, or to `last_s`; None: never by then."""
    held = p99_ms.reindex(range(overload_end_s, last_s + 1)).le(target_ms)
    return next((int(second - overload_end_s) for second in held.index
                 if held.loc[second:second + steady_s - 1].all()), None)


@dataclass(frozen=True)
class Outcome:
    """Whether a service held up past its capacity (module doc), from one phased level."""

    service: str
    level_id: str
    base_rate: int
    rate_source: str
    peak_rss_mb: float | None
    bound_mb: float | None  # None: its registry entry states none
    refused_pct: float | None  # 503s in % of the requests started during the overload
    p99_ok_ms: float | None  # of the 200s started during the overload
    acquire_timeout_ms: int
    answers: tuple[str, ...]  # every answer of the measured window
    recovery_s: int | None  # None: not back under the target before the last phase ended
    overloaded: bool  # a phase above the base rate: the two figures before and recovery_s apply
    money_ok: bool
    exit: int | str | None  # the service's exit status; None: it ran throughout; NOT_RECORDED
    # The load generator's verdict per phase: where it fell short, the level judges nothing.
    generator_ok: bool = True
    generator_reasons: str = ""
    refusals: "Refusals | None" = None  # what sent its 503s; None: it counted none, or has no metrics

    def misses(self) -> list[str]:
        """What of the module doc's rules the level broke, by name."""
        return [name for name, missed in (
            ("exited", self.exit not in (None, NOT_RECORDED)),
            ("memory", self.peak_rss_mb is not None and self.bound_mb is not None
             and self.peak_rss_mb > self.bound_mb),
            ("answers", bool(set(self.answers) - set(ALLOWED))),
            ("p99", self.overloaded and (self.p99_ok_ms is None or self.p99_ok_ms > self.acquire_timeout_ms)),
            ("recovery", self.overloaded and (self.recovery_s is None or self.recovery_s > RECOVERY_MAX_S)),
            ("money", not self.money_ok)) if missed]


def outcome(level_dir: Path, manifest: Manifest) -> Outcome:
    """A phased level's Outcome; `manifest` is its run's (the settings the service ran with)."""
    level, requests = _read(level_dir)
    line = _timeline(level_dir, level, requests)
    settings = manifest.settings
    overload = line.overload
    refused = p99 = recovered = None
    if overload is not None:
        first, last = overload[0], overload[1] - 1
        started = line.frame.loc[first:last, "requests"].sum()
        refused_n = line.answers.loc[first:last, REFUSED].sum() if REFUSED in line.answers else 0
        refused = _round(100 * refused_n / started) if started else None
        rows = requests.rows.index[(requests.rows["status"] == OK) & requests.rows["second"].between(first, last)]
        latencies = requests.latencies(rows)
        p99 = float(np.quantile(latencies, 0.99)) if len(latencies) else None
        recovered = recovery_s(line.frame["p99_ms"], overload[1], line.end_s - 1)
    seen = line.answers.loc[0:line.end_s - 1]
    base = level.base_rate
    assert base is not None  # a phased level's
    return Outcome(
        service=level.service, level_id=level_dir.name, base_rate=base.rate,
        rate_source=base.source, peak_rss_mb=_round(line.frame["rss_mb"].max()),
        bound_mb=memory_bound_mb(level, settings), refused_pct=refused, p99_ok_ms=p99,
        acquire_timeout_ms=int(settings.get("acquire_timeout_ms", config.acquire_timeout_ms())),
        answers=tuple(sorted(map(str, seen.columns[seen.sum() > 0]), key=status_order)),
        recovery_s=recovered, overloaded=overload is not None,
        money_ok=files.money_ok(level_dir), exit=level.service_exit)


def memory_bound_mb(level: LevelRecord, settings: dict) -> float | None:
    """The service's registry.Entry.memory_bound_mb over the level's heap, else the run's -Xmx."""
    options = [*settings.get("jvm_options", []), *settings.get("java_opts", "").split()]
    cap = level.heap_mb or processes.heap_cap_mb(level.service, options)
    return registry.get(level.service).memory_bound_mb(cap)


def outcomes(run: Run) -> list[Outcome]:
    """The Outcome of each phased level of a run, in its summary's order."""
    refused = refusals(run.summary, run.admission_limit)
    return [replace(outcome(run.level_dir(row["level_id"]), run.manifest), generator_ok=bool(row[VALID]),
                    generator_reasons=row["loadgen.reasons"], refusals=refused.get(row["level_id"]))
            for row in run.summary.to_dict("records")
            if is_phased(files.level_record(run.level_dir(row["level_id"])))]


class Refusals(NamedTuple):
    """A level's 503s the service counted; what could send them: `timeouts`, `created`, `limit`."""

    answered: int
    timeouts: int  # of them, at the acquire timeout: its pool's waits ended there
    created: int  # connections the pool opened in the level (the database may refuse one)
    limit: int | None  # the admission limit, MAX_CONCURRENT_REQUESTS (None: not known)


def refusals(summary: pd.DataFrame, limit: int | None = None) -> dict[str, Refusals]:
    """Per level of a run's summary whose service counted a 503 itself, what could send them."""
    counted = (ANSWERED_503, TIMEOUTS, CREATED)
    if not set(counted) <= set(summary):
        return {}
    def count(row: dict, column: str) -> int:
        return int(0 if pd.isna(row[column]) else row[column])

    return {row["level_id"]: Refusals(count(row, ANSWERED_503), count(row, TIMEOUTS), count(row, CREATED), limit)
            for row in summary[summary[ANSWERED_503].fillna(0) > 0].to_dict("records")}


def timelines(run: Run) -> list[Timeline]:
    return [timeline(run.level_dir(level_id)) for level_id in run.summary["level_id"]
            if is_phased(files.level_record(run.level_dir(level_id)))]


def _round(value: float) -> float | None:
    return None if pd.isna(value) else round(float(value), 1)
