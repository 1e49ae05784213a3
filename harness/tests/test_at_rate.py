"""Every service at one common rate (bankbench.analyse.at_rate, issue 69 item 6): the highest rate
of an efficiency run that every service held, and there each one's CPU, RSS and cost, on a
synthetic summary."""

from __future__ import annotations

import pandas as pd
import pytest

from bankbench.analyse import at_rate, projection
from bankbench.analyse.repeats import ERRORS, P99
from bankbench.results import summaries


def level(service: str, rate: int, repeat: int, p99: float, service_cpu: float = 0.2, pg_cpu: float = 0.1,
          valid: bool = True) -> dict:
    return {"service": service, "users": rate, "pool": 95, "repeat": repeat, P99: p99, ERRORS: 0.0,
            at_rate.SERVICE_CPU: service_cpu, at_rate.PG_CPU: pg_cpu, at_rate.RSS: 50.0 + repeat,
            summaries.VALID: valid, "money_ok": True}


def summary(java_p99_at_300: float, go_valid_at_300: bool = True) -> pd.DataFrame:
    rows = [level(service, rate, repeat, 5.0) for service in ("go", "java") for rate in (100, 200)
            for repeat in (1, 2, 3)]
    rows += [level("go", 300, repeat, 6.0, valid=go_valid_at_300) for repeat in (1, 2, 3)]
    rows += [level("java", 300, repeat, java_p99_at_300) for repeat in (1, 2, 3)]
    return pd.DataFrame(rows)


def test_the_common_rate_is_the_highest_every_service_held() -> None:
    assert at_rate.common_rate(summary(java_p99_at_300=20.0)) == 300
    assert at_rate.common_rate(summary(java_p99_at_300=80.0)) == 200  # java missed the target at 300
    assert at_rate.common_rate(summary(20.0, go_valid_at_300=False)) == 200  # go's repeats there did not count
    assert at_rate.common_rate(summary(80.0).assign(**{P99: 80.0})) is None


def test_cost_is_the_cpu_time_on_each_ones_instance_type() -> None:
    """0.2 ms of the service on an m5.large and 0.1 ms of PostgreSQL on a c5d.large per request."""
    rows = at_rate.at(summary(20.0), 300)
    instances = projection.catalog()
    m5, c5d = instances["m5.large"], instances["c5d.large"]
    expected = 1e6 * (0.2 * m5.usd_per_hour / m5.vcpus + 0.1 * c5d.usd_per_hour / c5d.vcpus) / 3_600_000
    assert set(rows["users"]) == {300}
    assert rows[at_rate.CPU].tolist() == pytest.approx([0.3] * 6)
    assert rows[at_rate.USD].tolist() == pytest.approx([expected] * 6)
    assert at_rate.priced_on() == "m5.large + c5d.large"
