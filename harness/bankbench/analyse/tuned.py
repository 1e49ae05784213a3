"""The shipped and the tuned settings: where `make tune` tunes each service (its capacity rate
and heap, from the capacity runs at the shipped settings), and, for the report, the capacity at
the shipped settings beside the capacity at the tuned ones (TUNED=1)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bankbench import paths
from bankbench.analyse.capacity_figures import Target
from bankbench.analyse.rawdata import read_json
from bankbench.analyse.runs import CAPACITY_FILE, find_runs, placement_of, tuned_of


@dataclass(frozen=True)
class Basis:
    """Where make tune tunes a service: the capacity rate found under a placement at the shipped
    settings (`run`: the capacity run's id) and its target, with the smallest heap that held a
    capacity rate (`heap_run`; None: no sweep found one, the shipped heap)."""

    rate: int
    target: Target
    run: str
    heap_mb: int | None = None
    heap_run: str | None = None


def bases(placement: str, root: Path = paths.RUNS) -> dict[str, Basis]:
    """Per service, from the newest complete capacity run at the shipped settings under
    `placement` that found its rate: that rate and target; and from the newest such run under any
    placement that found one the heap (make capacity sweeps it under its first placement only:
    a service's heap need is its own wherever its CPUs are). A service none found is not there."""
    found: dict[str, Basis] = {}
    heaps: dict[str, tuple[int, str]] = {}
    for path in reversed(find_runs(root)):  # newest first
        manifest = read_json(path / "manifest.json")
        if not (path / CAPACITY_FILE).is_file() or tuned_of(manifest):
            continue
        doc = read_json(path / CAPACITY_FILE)
        for service, record in doc["services"].items():
            if (heap := record.get("heap", {}).get("found")) is not None:
                heaps.setdefault(service, (heap, path.name))
            if (rate := record.get("rate", {}).get("found")) is not None and placement_of(manifest) == placement:
                found.setdefault(service, Basis(rate, Target(**doc["target"]), path.name))
    return {service: Basis(b.rate, b.target, b.run, *heaps.get(service, (None, None))) for service, b in found.items()}
