"""Run records for fake run folders, as the harness writes them: of the schema versions it reads
(bankbench.results.versions), with the keys every one of them has."""

from __future__ import annotations

from bankbench import config
from bankbench.bank import money
from bankbench.results import runs, versions

TARGET = {"p99_ms": 50.0, "max_error_pct": 0.1}
BALANCED = money.Check(clients=1, sum_balances=0, sum_deposits=0, ledger_mismatches=0,
                       negative_balances=0)  # a money check that passed


def manifest(run_id: str, profile_name: str, placement: str = "split", env: str = "native", **settings) -> dict:
    """manifest.json of a run of the profile `profile_name` under `placement`; `settings` over the
    recorded ones (`profile`: the profile's own, by name)."""
    return {versions.KEY: versions.MANIFEST, "run_id": run_id, "env": env, "profile": profile_name, "settings": {
        "profile": {"name": profile_name}, "cpu_placement": {
            "mode": placement, "loadgen_cpus": [0], "service_cpus": [1], "postgres_cpus": [1],
            "description": f"{placement}: fake"},
        "max_concurrent_requests": config.DEFAULT_MAX_CONCURRENT_REQUESTS, **settings}}


def contender(service: str, record: dict, tuned: bool = False, pool: int = config.DEFAULT_POOL_SIZE) -> dict:
    """A contender's record in capacity.json: `record` (probes, rate ...), named as make capacity names it."""
    return {"service": service, "contender": f"{service} tuned" if tuned else service, "pool": pool, **record}


def capacity(shipped: dict[str, dict], tuned: dict[str, dict] | None = None, in_turn: list[str] | None = None,
             long_s: int = 0, **top) -> dict:
    """capacity.json of the services' records (`contender`'s, by service) at the shipped settings
    and, TUNED=both, the tuned ones; `in_turn` None: one service searched after another."""
    return {versions.KEY: versions.CAPACITY, "target": TARGET, "design": None, "in_turn": in_turn,
            "long_s": long_s, **top, runs.SHIPPED_SECTION: {s: contender(s, r) for s, r in shipped.items()},
            **({runs.TUNED_SECTION: {s: contender(s, r, tuned=True) for s, r in tuned.items()}}
               if tuned is not None else {})}


def tuning(services: dict[str, dict], **top) -> dict:
    """tuning.json of the services' records (each with its `not_searched`); `top` over its budget
    and rate share."""
    return {versions.KEY: versions.TUNING, "protocol": runs.PAIRED, "budget_s": 3600, "rate_share": 0.8, **top,
            "services": services}


# What a duel's record holds besides its values, its probes and its verdict.
DUEL = {"voided": [], "won": True, "effect": None, "low": None, "high": None, "detectable": None,
        "confirms": False}
