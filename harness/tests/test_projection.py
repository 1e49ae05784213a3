"""The cost projection (bankbench.analyse.projection) over the real infra/instances.csv: a line for
the service from its capacity (a bound stays a bound: a capacity "≥" costs "≤") and one for
PostgreSQL from its own CPU per request; requests per vCPU, instances and cost per million
requests with their intervals; instance types alike in vCPUs and price shown once; its
assumptions, the preference for an AWS run, the capacity it reads (service-alone only), and the
report's table of it."""

from __future__ import annotations

import json
import math
import re
from datetime import date
from pathlib import Path

import fake_records
import pandas as pd
import pytest

from bankbench import paths
from bankbench.analyse import capacity_figures, estimates
from bankbench.analyse.findings import Verdict
from bankbench.analyse.projection import (
    AT_LEAST,
    AT_MOST,
    DATABASE,
    SERVICE,
    Alike,
    Assumptions,
    Basis,
    Span,
    alike,
    catalog,
    from_capacity,
    from_cpu_time,
    preferred,
)
from bankbench.publish import pages, tables
from bankbench.publish.formatting import bounded, significant
from bankbench.results import runs, summaries
from bankbench.results.documents import Manifest
from bankbench.results.runs import Run

NO_INTERVAL = Span(0.14, math.nan, math.nan)
SERVICE_ALONE = {"mode": "service-alone", "service_cpus": [1], "postgres_cpus": [0], "loadgen_cpus": [0],
                 "description": "service-alone: the service had CPU 1 (1 of 2) to itself"}
SPLIT = {"mode": "split", "service_cpus": [1], "postgres_cpus": [1], "loadgen_cpus": [0],
         "description": "split: the service and PostgreSQL shared CPU 1"}
AMD = {"cpu_model": "AMD EPYC", "cores": 2}
HELD = estimates.Figure(4000.0, 3900.0, 4100.0, "", ())  # requests/s at the capacity
SERVICE_CPU_MS, PG_CPU_MS = estimates.Figure(0.2, 0.1, 0.3, "", ()), estimates.Figure(0.125, 0.1, 0.25, "", ())
NONE = estimates.Figure(math.nan, math.nan, math.nan, "", ())


def run(run_id: str, env: str, machine: dict, placement: dict | None = None, summary: pd.DataFrame | None = None,
        path: Path | None = None) -> Run:
    manifest = {"run_id": run_id, "env": env, "machine": machine,
                **({"settings": {"cpu_placement": placement}} if placement else {})}
    return Run(path or Path(run_id), Manifest.of(manifest), pd.DataFrame() if summary is None else summary)


LOCAL = run("20261123T010000Z-native-capacity", "native", AMD, SERVICE_ALONE)
ON_AWS = run("20261122T010000Z-aws-efficiency", "aws",
             {"cloud": "aws", "region": "us-east-1", "hosts": {"service": {"instance_type": "m5.large", "count": 1}}},
             {"mode": "hosts", "description": "hosts: each role on its own"})


@pytest.fixture(scope="module")
def instances() -> dict:
    return catalog()


@pytest.fixture(scope="module")
def local(instances: dict) -> Assumptions:
    return Assumptions(Basis.of(LOCAL, instances), 50.0)


def on(instances: dict, *names: str) -> Alike:
    (group,) = alike([instances[name] for name in names])
    return group


def test_the_catalog_holds_sizes_and_dated_sourced_prices_in_the_region_of_infra(instances: dict) -> None:
    sizes = {name: (i.vcpus, i.memory_gib, i.usd_per_hour) for name, i in instances.items()}
    assert sizes["m5.large"] == (2, 8, 0.096) and sizes["c5d.large"] == (2, 4, 0.096)
    assert sizes["m5.xlarge"] == (4, 16, 0.192) and sizes["c5d.2xlarge"] == (8, 16, 0.384)
    default_region = re.search(r'variable "region" \{.*?default\s*=\s*"([^"]+)"',
                               (paths.INFRA / "variables.tf").read_text(), re.S).group(1)
    for instance in instances.values():
        assert instance.region == default_region
        assert date.fromisoformat(instance.price_date) <= date.today()
        assert instance.price_source.startswith("https://")
        assert instance.threads_per_core == 2  # m5 and c5d: a vCPU is a hyper-thread


def test_a_bound_stays_one_through_a_rising_figure_and_turns_through_a_falling_one() -> None:
    at_least = Span(4000, 3900, 4100, AT_LEAST)
    assert at_least.through(lambda rps: rps * 2) == (8000, 7800, 8200, AT_LEAST)
    cost = at_least.through(lambda rps: 1e6 / rps, falling=True)
    assert cost[:3] == pytest.approx((250, 1e6 / 4100, 1e6 / 3900)) and cost.bound == AT_MOST
    assert Span(1, 0.5, 2).through(lambda x: 1 / x, falling=True).bound == ""  # an estimate stays one
    assert bounded(Span(0.00316, math.nan, math.nan, AT_MOST), significant) == "≤ 0.00316"


def test_go_at_its_capacity_on_an_m5_large(instances: dict, local: Assumptions) -> None:
    """4,000 req/s on the one CPU it had to itself: 4,000 per vCPU, 8,000 per m5.large."""
    go = from_capacity("go", Span.of(HELD), on(instances, "m5.large"), local)
    assert (go.line, go.on.name) == (SERVICE, "m5.large")
    assert go.rps_per_vcpu[:3] == pytest.approx((4_000, 3_900, 4_100))
    assert go.rps_per_instance[:3] == pytest.approx((8_000, 7_800, 8_200))
    assert go.instances[:3] == (2, 2, 2)  # 10,000 req/s need two
    assert go.usd_per_hour[:3] == pytest.approx((0.192, 0.192, 0.192))
    # $0.096 for 28.8 million requests an hour; 29.52 and 28.08 million at the interval's ends
    assert go.usd_per_million[:3] == pytest.approx((0.096 / 28.8, 0.096 / 29.52, 0.096 / 28.08))
    assert go.usd_per_million.bound == ""


def test_a_capacity_the_load_generator_capped_costs_at_most(instances: dict, local: Assumptions) -> None:
    """A capacity "≥ 4,000": per vCPU at least that, instances and cost at most, the interval kept."""
    go = from_capacity("go", Span.of(HELD, AT_LEAST), on(instances, "m5.large"), local)
    assert go.rps_per_vcpu.bound == go.rps_per_instance.bound == AT_LEAST
    assert go.instances.bound == go.usd_per_hour.bound == go.usd_per_million.bound == AT_MOST
    assert go.usd_per_million[:3] == pytest.approx((0.096 / 28.8, 0.096 / 29.52, 0.096 / 28.08))
    assert bounded(go.usd_per_million, significant) == "≤ 0.00333 [0.00325-0.00342]"


def test_postgresql_has_a_line_of_its_own_from_its_cpu_time(instances: dict, local: Assumptions) -> None:
    """PostgreSQL at 0.125 CPU ms per request: 8,000 requests/s per vCPU, 16,000 per c5d.large."""
    pg = from_cpu_time("go", Span.of(PG_CPU_MS), on(instances, "c5d.large"), local)
    assert (pg.line, pg.on.name) == (DATABASE, "c5d.large")
    assert pg.rps_per_vcpu[:3] == pytest.approx((8_000, 4_000, 10_000))
    assert pg.rps_per_instance[:3] == pytest.approx((16_000, 8_000, 20_000))
    assert pg.instances[:3] == (1, 1, 2)
    assert pg.usd_per_million[:3] == pytest.approx((0.096 / 57.6, 0.096 / 72, 0.096 / 28.8))


def test_the_service_line_divides_by_the_cpus_the_service_had(instances: dict) -> None:
    """On AWS the service had its m5.large's 2 vCPUs: its requests/s are per 2 vCPUs."""
    aws = Assumptions(Basis.of(ON_AWS, instances), 50.0, searched=False)
    go = from_capacity("go", Span.of(HELD, AT_LEAST), on(instances, "m5.large"), aws)
    assert go.rps_per_vcpu[:3] == pytest.approx((2_000, 1_950, 2_050))


def test_headroom_and_load_scale_instances_and_cost(instances: dict, local: Assumptions) -> None:
    half = Assumptions(local.basis, local.target_ms, load_rps=50_000, headroom=0.5)
    go = from_capacity("go", Span(10_000, 8_000, 12_500), on(instances, "m5.xlarge"), half)
    assert go.rps_per_instance[:3] == pytest.approx((20_000, 16_000, 25_000))  # 4 vCPUs at half
    assert go.instances[:3] == (3, 2, 4)  # 50,000 / 25,000 .. 50,000 / 16,000, rounded up
    assert go.usd_per_hour[:3] == pytest.approx((0.576, 0.384, 0.768))
    assert go.usd_per_million[:3] == pytest.approx((0.192 / 72, 0.192 / 90, 0.192 / 57.6))


def test_a_figure_without_an_interval_projects_without_one(instances: dict, local: Assumptions) -> None:
    virtual = from_cpu_time("java-virtual", NO_INTERVAL, on(instances, "c5d.large"), local)
    assert virtual.rps_per_vcpu.value == pytest.approx(7_142.9, rel=1e-4)
    assert math.isnan(virtual.usd_per_million.low) and math.isnan(virtual.instances.high)


def test_instance_types_alike_in_vcpus_and_price_are_one_row(instances: dict, local: Assumptions) -> None:
    """m5.large and c5d.large, both 2 vCPUs at $0.096/hour, give the same figures: one row naming
    both; m5.xlarge, twice the vCPUs, its own."""
    groups = alike([instances[name] for name in ("m5.large", "m5.xlarge", "c5d.large")])
    assert [group.name for group in groups] == ["m5.large, c5d.large", "m5.xlarge"]
    shown = [from_capacity("go", Span.of(HELD), group, local) for group in groups]
    table = tables.projection(shown, local)
    assert table["instance"].tolist() == ["m5.large, c5d.large", "m5.xlarge"]
    assert list(tables.projection_assumptions(local, [i for g in groups for i in g.types])["item"]).count(
        "price of c5d.large") == 1


def test_an_aws_run_is_preferred_however_old_else_the_newest() -> None:
    older = run("20261120T010000Z-native-efficiency", "native", AMD)
    assert preferred([older, LOCAL, ON_AWS]) is ON_AWS
    assert preferred([LOCAL, older]) is LOCAL


def test_the_assumptions_name_both_cpus_both_lines_and_drop_what_an_aws_run_measured(
        instances: dict, local: Assumptions) -> None:
    shown = [instances["m5.large"], instances["c5d.large"]]

    def assumed(a: Assumptions) -> dict[str, str]:
        return tables.projection_assumptions(a, shown).set_index("item")["value"].to_dict()

    here = assumed(local)
    assert (here["measured in run"], here["measured on"], here["service CPUs"]) == (LOCAL.id, "AMD EPYC", "1")
    assert here["CPU placement"] == "service-alone: the service had CPU 1 (1 of 2) to itself"
    assert "Intel Xeon Platinum 8175M" in here["CPU of m5.large"] and here["CPU of c5d.large"].endswith("not corrected")
    assert (here["rate read"], here["p99 target ms"]) == ("the capacity", "50")
    assert here["PostgreSQL: req/s per vCPU"].startswith("1000 / its CPU ms per request")
    assert here["hyper-threads per core"].endswith("not corrected") and here["headroom"].startswith("none")
    assert here["price of c5d.large"].startswith("$0.096/hour") and "2026-01-19" in here["price of c5d.large"]

    aws = assumed(Assumptions(Basis.of(ON_AWS, instances), 50.0, searched=False))
    assert aws["measured on"].startswith("m5.large (Intel Xeon Platinum 8175M") and aws["service CPUs"] == "2"
    assert aws["CPU of m5.large"].endswith("measured on it") and aws["CPU of c5d.large"].endswith("not corrected")
    assert aws["hyper-threads per core"].endswith("measured")
    assert aws["rate read"] == "the highest offered rate that held (not searched)"


def test_the_report_labels_the_table_a_projection_and_its_lines(instances: dict, local: Assumptions) -> None:
    shown = [from_capacity("go", Span.of(HELD, AT_LEAST), on(instances, "m5.large"), local),
             from_cpu_time("go", Span.of(PG_CPU_MS), on(instances, "c5d.large"), local),
             from_cpu_time("java-virtual", NO_INTERVAL, on(instances, "c5d.large"), local)]
    table = tables.projection(shown, local)
    assert list(table.columns) == ["service", "line", "instance", "measured", "projected req/s per vCPU",
                                   "projected instances for 10,000 req/s", "projected $/hour for them",
                                   "projected $ per 1M requests"]
    assert table.iloc[0].tolist() == ["go", "service", "m5.large", "≥ 4,000 [3,900-4,100] req/s",
                                      "≥ 4,000 [3,900-4,100]", "≤ 2", "≤ 0.192", "≤ 0.00333 [0.00325-0.00342]"]
    assert table.iloc[1].tolist()[:4] == ["go", "PostgreSQL", "c5d.large", "0.125 [0.1-0.25] CPU ms/request"]
    assert table.iloc[2, -1] == "0.00187"  # no interval, none shown
    verdict = Verdict(LOCAL, None, 50.0, [], shown, local)
    section = pages.projection_section(verdict)
    assert section[0] == "## Projected cost per million requests on m5.large and c5d.large"
    assert section[1].startswith("A projection, not a measurement")
    assert "| headroom" in section[3]


def capacity_run(tmp_path: Path, placement: dict) -> Run:
    """A capacity run folder under `placement`, its capacity.json holding the target only."""
    searched = tmp_path / f"20261124T010000Z-native-capacity-{placement['mode']}"
    searched.mkdir()
    (searched / runs.CAPACITY_FILE).write_text(json.dumps(fake_records.capacity({})))
    return run(searched.name, "native", AMD, placement, path=searched)


def found(rate: int | None, failed_at: int | None, generator_bound: bool) -> capacity_figures.Capacity:
    """Go's capacity: HELD requests/s there, the service's and PostgreSQL's CPU apart."""
    return capacity_figures.Capacity("go", rate, failed_at, generator_bound, True, HELD, NONE, SERVICE_CPU_MS,
                                     PG_CPU_MS, NONE, None, None, None, NONE)


@pytest.mark.parametrize(("capacity", "bound"), [
    (found(600, 650, generator_bound=True), AT_MOST),  # ≥ 600: the load generator fell short at 650
    (found(600, None, generator_bound=False), AT_MOST),  # ≥ 600: the top rate tried
    (found(600, 650, generator_bound=False), ""),  # 600, 650 missed: the service's own
])
def test_the_verdict_prices_the_service_from_its_capacity_and_postgresql_from_its_cpu(
        tmp_path: Path, capacity: capacity_figures.Capacity, bound: str) -> None:
    projected, _ = capacity_figures.projections(capacity_run(tmp_path, SERVICE_ALONE), [capacity])
    service, database = projected
    assert (service.line, service.on.name, database.line, database.on.name) == (
        SERVICE, "m5.large", DATABASE, "c5d.large")
    assert service.measured == Span.of(HELD, AT_LEAST if bound else "")
    assert service.usd_per_million.bound == bound
    assert database.measured == Span.of(PG_CPU_MS)  # PostgreSQL's own CPU, not the service's
    assert database.rps_per_vcpu.value == pytest.approx(8_000) and database.usd_per_million.bound == ""


def test_the_verdicts_rows_never_repeat_a_line_on_alike_instance_types(tmp_path: Path) -> None:
    projected, _ = capacity_figures.projections(capacity_run(tmp_path, SERVICE_ALONE),
                                                [found(600, 650, generator_bound=True)])
    shown = [(p.service, p.line, p.on.vcpus, p.on.usd_per_hour) for p in projected]
    assert len(shown) == len(set(shown)) == 2


def test_a_capacity_under_another_placement_gives_no_projection_and_says_why(tmp_path: Path) -> None:
    """Under split the service shared its CPU with PostgreSQL: its requests/s are not per service CPU."""
    split = capacity_run(tmp_path, SPLIT)
    why = capacity_figures.projections(split, [found(600, 650, generator_bound=False)])
    assert why == capacity_figures.NOT_ALONE
    heading, said = pages.projection_section(Verdict(split, None, 50.0, [], [], None, why))
    assert heading == "## Projected cost per million requests" and said == pages.UNPROJECTED[why]
    assert "service-alone" in said


def test_an_aws_efficiency_run_replaces_the_capacity_run_as_the_basis(tmp_path: Path) -> None:
    """The verdict's projection takes an AWS run where one is shown: its requests/s at the highest
    rate whose usable repeats held the target, a lower bound (not searched further), and
    PostgreSQL's CPU there; without one, the capacity run's."""
    searched = capacity_run(tmp_path, SERVICE_ALONE)
    rows = [{"service": "go", "users": rate, "money_ok": True, summaries.VALID: valid, "overall.p99_ms": p99,
             "overall.error_pct": 0.0, "overall.throughput_rps": rate * 7.0, "efficiency.pg_cpu_ms_per_request": pg}
            for rate, p99, valid, pg in ((100, 5, True, 0.11), (200, 9, True, 0.10), (400, 20, False, 0.05),
                                         (300, 80, True, 0.12))]
    aws = Run(ON_AWS.path, ON_AWS.manifest, pd.DataFrame(rows))
    (service, database), assumptions = capacity_figures.projections(searched, [found(600, 650, False)], [aws])
    # 200/s: 400 was invalid, 300 missed the p99 target; 1,400 req/s over the m5.large's 2 vCPUs
    assert (service.rps_per_vcpu.value, service.rps_per_vcpu.bound) == (700, AT_LEAST)
    assert database.measured.value == 0.10 and assumptions.basis.instance_type == "m5.large"
    (service, _), assumptions = capacity_figures.projections(searched, [found(600, 650, False)], [LOCAL])
    assert service.measured.value == 4000 and assumptions.basis.run_id == searched.id
