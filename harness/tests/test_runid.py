"""The ids of runs (bankbench.runid): one UTC stamp, in the format of results/runs/'s folders."""

from __future__ import annotations

import re

from bankbench import runid

STAMP = r"\d{8}T\d{6}Z"  # yyyymmddThhmmssZ, results/LAYOUT.md


def test_ids_start_with_a_utc_stamp() -> None:
    assert re.fullmatch(STAMP, runid.stamp())
    assert re.fullmatch(rf"{STAMP}-native-smoke", runid.run_id("native", "smoke"))
    assert re.fullmatch(rf"{STAMP}-placement", runid.series_id("placement"))


def test_a_run_id_takes_one_stamp(monkeypatch) -> None:
    monkeypatch.setattr(runid, "stamp", lambda: "20261122T013000Z")
    assert runid.run_id("aws", "smoke") == "20261122T013000Z-aws-smoke"
