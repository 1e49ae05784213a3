"""The report's request-cost table (analyse.request_cost, publish.tables) from a pgwire.json made
here: medians over the repeats, each repeat's PostgreSQL CPU beside them, and a figure no level
measured."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from bankbench.analyse import request_cost
from bankbench.publish import tables
from bankbench.results import files
from bankbench.results.documents import Manifest
from bankbench.results.runs import Run


def pgwire_run(tmp_path: Path, levels: dict[str, dict]) -> Run:
    files.write_pgwire(tmp_path, {"rate": 250, "levels": levels})
    summary = pd.DataFrame([{"level_id": level, "service": level.split("-u")[0], "pool": 95} for level in levels])
    return Run(tmp_path, Manifest.of({}), summary)


def level(pg_cpu: float, **spread: float) -> dict:
    return {"pg_cpu_ms_per_request": pg_cpu, "service_cpu_ms_per_request": 0.2, "backends": 80,
            "to_pg": {"Bind": 1.0, "Execute": 1.0, "Sync": 1.0}, **spread}


def test_a_repeat_gone_wrong_shows_beside_the_median(tmp_path: Path) -> None:
    run = pgwire_run(tmp_path, {
        "java-u250-p95-r1": level(0.423, backends_for_half=17, same_backend_share=0.063),
        "java-u250-p95-r2": level(0.147, backends_for_half=30, same_backend_share=0.039),
    })
    (row,) = tables.request_cost(request_cost.per_service(run)).to_dict("records")
    assert (row["PostgreSQL CPU ms/request"], row["each repeat"]) == ("0.285", "0.423, 0.147")
    assert (row["backends that ran half"], row["% on the backend of the one before"]) == ("24", "5.10")


def test_a_figure_no_level_measured_shows_none(tmp_path: Path) -> None:
    run = pgwire_run(tmp_path, {"go-u250-p95-r1": level(0.12, backends_for_half=None, same_backend_share=None)})
    (row,) = tables.request_cost(request_cost.per_service(run)).to_dict("records")
    assert (row["backends that ran half"], row["% on the backend of the one before"]) == ("-", "-")
    assert row["each repeat"] == "0.12"
