"""The one place that names runs: a UTC stamp, and the ids built on it.

The stamp is the UTC time something started (`yyyymmddThhmmssZ`); the ids: results/LAYOUT.md. The
runner takes a run's id once, before it opens the environment, and hands it over: it names the run's
folder and, on AWS, its prefix in S3."""

from datetime import UTC, datetime


def stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")  # e.g. 20261122T013000Z


def run_id(env: str, profile: str) -> str:
    return f"{stamp()}-{env}-{profile}"


def series_id(profile: str) -> str:
    """The id the runs of one `bench` over several CPU placements share (bankbench.results.runs)."""
    return f"{stamp()}-{profile}"
