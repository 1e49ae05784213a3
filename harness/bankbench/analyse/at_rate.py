"""Every service at one common rate: CPU per request, peak RSS and cost per million requests.

CPU per request falls as the rate rises (fixed per-second costs, scrapes, GC, JIT and pollers,
spread over more requests: go 0.35 ms at 100 it/s, 0.20 at 600), so stacks taken each at its own
capacity compare unequal rates. These figures come from one `efficiency` run (open-model rates on
warm services, repeats), at its highest offered rate at which every service's levels counted
(money check passed, load generator held up) and held the latency target: per service over its
repeats, the service's and PostgreSQL's CPU ms per request together, the service's peak RSS, and
what that CPU time costs per million requests on the priced instance types at full use of their
vCPUs (a floor: no headroom, no load balancer).

See docs/method.md#one-common-rate."""

import pandas as pd

from bankbench.analyse import projection, standing
from bankbench.analyse.capacity_figures import PROJECTED_ON
from bankbench.analyse.repeats import ERRORS, P99
from bankbench.results import probes

SERVICE_CPU, PG_CPU = "efficiency.service_cpu_ms_per_request", "efficiency.pg_cpu_ms_per_request"
CPU = "at_rate.cpu_ms_per_request"  # the service's and PostgreSQL's, per repeat
RSS = "resources.service_rss_max_mb"
USD = "at_rate.usd_per_million"  # per repeat: each one's CPU time on its instance type
PRICED = ((SERVICE_CPU, PROJECTED_ON[projection.SERVICE][0]), (PG_CPU, PROJECTED_ON[projection.DATABASE][0]))
MS_PER_HOUR = 3_600_000
# Each figure at the rate, summary column -> its header (a column of `at`'s rows).
FIGURES = {SERVICE_CPU: "CPU ms/request, service", PG_CPU: "CPU ms/request, PostgreSQL",
           CPU: "CPU ms/request, both", RSS: "peak RSS MB", USD: "$ per million requests"}
TARGET = probes.Target()  # make capacity's: p99 within 50 ms, errors under 0.1 %


def common_rate(summary: pd.DataFrame, target: probes.Target = TARGET) -> int | None:
    """The highest offered rate at which every service of `summary` has a usable repeat and, over
    them, a median p99 within the target with errors under it; None: no such rate."""
    if not {SERVICE_CPU, PG_CPU} <= set(summary):  # a run without CPU figures (no sampler)
        return None
    usable = summary[standing.usable(summary)]
    services = set(summary["service"])
    for rate in sorted(set(summary["users"]), reverse=True):
        at = usable[usable["users"] == rate].groupby("service")[[P99, ERRORS]].median()
        if set(at.index) == services and ((at[P99] <= target.p99_ms) & (at[ERRORS] < target.max_error_pct)).all():
            return int(rate)
    return None


def at(summary: pd.DataFrame, rate: int) -> pd.DataFrame:
    """The levels at `rate`, each repeat with CPU (service and PostgreSQL) and USD (their cost)."""
    instances = projection.catalog()
    rows = summary[summary["users"] == rate].copy()
    rows[CPU] = rows[SERVICE_CPU] + rows[PG_CPU]
    rows[USD] = sum(1e6 * rows[column] * instances[name].usd_per_hour / instances[name].vcpus / MS_PER_HOUR
                    for column, name in PRICED)
    return rows


def priced_on() -> str:
    """`m5.large + c5d.large`: the service's instance type, then PostgreSQL's."""
    return " + ".join(name for _, name in PRICED)
