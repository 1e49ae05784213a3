"""The failed requests around each fault a chaos level struck.

The faults are run.experiments.chaos's; the requests are read off the raw samples while still beside
the level, for their exact times (the histograms keep seconds).

See docs/benchmarks.md#chaos and results/LAYOUT.md#leveljson."""

from pathlib import Path

from bankbench.results import histograms

BURST_GRACE_MS = 2000  # failures this long after recovery still belong to the fault


def with_bursts(records: list[dict], samples_csv: Path | None) -> list[dict]:
    """Adds to each fault the failed requests from its strike to its recovery plus a grace, or to
    the next fault if sooner: count and first-to-last duration, per response code."""
    if not records:
        return records
    if samples_csv is None:
        raise ValueError("faults were struck, and the level kept no samples to find their bursts in")
    # Raw codes, not error_kind's: a burst names JMeter's exception ("Non HTTP response code: ...").
    samples = histograms.read_samples(samples_csv)
    failed = samples[~samples["success"]]
    out = []
    for record, next_at_ms in zip(records, [r["at_ms"] for r in records[1:]] + [None], strict=True):
        end_ms = record["recovered_ms"] + BURST_GRACE_MS
        in_burst = failed["timeStamp"].between(record["at_ms"], min(end_ms, next_at_ms or end_ms),
                                               inclusive="left")
        window = failed[in_burst]
        burst = {str(code): {"count": len(group),
                             "duration_s": round((group["timeStamp"].max() - group["timeStamp"].min()) / 1000, 2)}
                 for code, group in window.groupby("responseCode", observed=True)}
        out.append({**record, "errors": len(window), "burst": burst})
    return out
