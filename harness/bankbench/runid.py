"""The one place that names runs: the UTC stamp of when something started (`yyyymmddThhmmssZ`),
and the ids built on it (results/LAYOUT.md).

A run's id, `<stamp>-<env>-<profile>`, is the name of its folder in results/runs/ and, on AWS, of
its prefix in S3: the runner takes it once, before it opens the environment, and hands it over.
A series of runs over CPU placements has `<stamp>-<profile>`; `quick` and `connections` name
their result files by the stamp alone.
"""

from __future__ import annotations

from datetime import UTC, datetime

FORMAT = "%Y%m%dT%H%M%SZ"  # e.g. 20261122T013000Z


def stamp() -> str:
    """Now, in UTC, as every id of the harness begins."""
    return datetime.now(UTC).strftime(FORMAT)


def run_id(env: str, profile: str) -> str:
    """A benchmark run's id, starting now in environment `env` with profile `profile`."""
    return f"{stamp()}-{env}-{profile}"


def series_id(profile: str) -> str:
    """The id the runs of one `bench` over several CPU placements share (bankbench.results.runs)."""
    return f"{stamp()}-{profile}"
