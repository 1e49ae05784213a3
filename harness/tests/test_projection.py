"""The cost projection (bankbench.analyse.projection) over the real infra/instances.csv: requests
per vCPU, instances and cost per million requests with their intervals, its assumptions, the
preference for an AWS run, and the report's table of it."""

from __future__ import annotations

import json
import math
import re
from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from bankbench import paths
from bankbench.analyse import capacity_figures, stats, summaries
from bankbench.analyse.projection import Assumptions, Basis, Span, catalog, preferred, project
from bankbench.analyse.runs import Run
from bankbench.publish import pages, tables

NO_INTERVAL = Span(0.14, math.nan, math.nan)
AMD = {"cpu_model": "AMD EPYC", "cores": 2}


def run(run_id: str, env: str, machine: dict) -> Run:
    return Run(Path(run_id), {"run_id": run_id, "env": env, "machine": machine}, pd.DataFrame())


LOCAL = run("20261123T010000Z-native-efficiency", "native", AMD)
ON_AWS = run("20261122T010000Z-aws-efficiency", "aws",
             {"cloud": "aws", "region": "us-east-1", "hosts": {"service": {"instance_type": "m5.large", "count": 1}}})


@pytest.fixture(scope="module")
def instances() -> dict:
    return catalog()


@pytest.fixture(scope="module")
def local(instances: dict) -> Assumptions:
    return Assumptions(Basis.of(LOCAL, instances), "at the capacity for p99 <= 50 ms")


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


def test_go_at_a_tenth_of_a_millisecond_on_an_m5_large(instances: dict, local: Assumptions) -> None:
    go = project("go", Span(0.1, 0.08, 0.125), instances["m5.large"], local)
    assert go.rps_per_vcpu == pytest.approx((10_000, 8_000, 12_500))
    assert go.rps_per_instance == pytest.approx((20_000, 16_000, 25_000))
    assert go.instances == (1, 1, 1)  # 10,000 req/s fit in one
    assert go.usd_per_hour == pytest.approx((0.096, 0.096, 0.096))
    # $0.096 for 72 million requests an hour; 90 and 57.6 million at the interval's ends
    assert go.usd_per_million == pytest.approx((0.096 / 72, 0.096 / 90, 0.096 / 57.6))


def test_java_needs_two_c5d_large_for_ten_thousand_requests(instances: dict, local: Assumptions) -> None:
    java = project("java", Span(0.36, 0.3, 0.4), instances["c5d.large"], local)
    assert java.rps_per_instance == pytest.approx((5_555.6, 5_000, 6_666.7), rel=1e-4)
    assert java.instances == (2, 2, 2)
    assert java.usd_per_hour == pytest.approx((0.192, 0.192, 0.192))
    assert java.usd_per_million == pytest.approx((0.0048, 0.004, 0.096 / 18))


def test_headroom_and_load_scale_instances_and_cost(instances: dict, local: Assumptions) -> None:
    half = Assumptions(local.basis, local.measured_at, load_rps=50_000, headroom=0.5)
    go = project("go", Span(0.1, 0.08, 0.125), instances["m5.xlarge"], half)
    assert go.rps_per_instance == pytest.approx((20_000, 16_000, 25_000))  # 4 vCPUs at half
    assert go.instances == (3, 2, 4)  # 50,000 / 25,000 .. 50,000 / 16,000, rounded up
    assert go.usd_per_hour == pytest.approx((0.576, 0.384, 0.768))
    assert go.usd_per_million == pytest.approx((0.192 / 72, 0.192 / 90, 0.192 / 57.6))


def test_a_figure_without_an_interval_projects_without_one(instances: dict, local: Assumptions) -> None:
    virtual = project("java-virtual", NO_INTERVAL, instances["m5.large"], local)
    assert virtual.rps_per_vcpu.value == pytest.approx(7_142.9, rel=1e-4)
    assert math.isnan(virtual.usd_per_million.low) and math.isnan(virtual.instances.high)


def test_an_aws_run_is_preferred_however_old_else_the_newest() -> None:
    older = run("20261120T010000Z-native-efficiency", "native", AMD)
    assert preferred([older, LOCAL, ON_AWS]) is ON_AWS
    assert preferred([LOCAL, older]) is LOCAL


def test_the_assumptions_name_both_cpus_and_drop_what_an_aws_run_measured(instances: dict,
                                                                          local: Assumptions) -> None:
    shown = [instances["m5.large"], instances["c5d.large"]]
    here = dict(local.rows(shown))
    assert "AMD EPYC" in here["measured"] and "Intel Xeon Platinum 8175M" in here["CPU of m5.large"]
    assert "no correction from AMD EPYC" in here["CPU of c5d.large"]
    assert "optimistic" in here["hyper-threads"] and here["headroom"].startswith("none")
    assert here["price of c5d.large"].startswith("$0.096/hour") and "2026-01-19" in here["price of c5d.large"]

    aws = dict(Assumptions(Basis.of(ON_AWS, instances), "at 1,000 req/s").rows(shown))
    assert aws["CPU of m5.large"].endswith("measured on it")
    assert "no correction from Intel Xeon Platinum 8175M" in aws["CPU of c5d.large"]
    assert aws["hyper-threads"].startswith("measured in the vCPUs of an m5.large")


def test_the_report_labels_the_table_a_projection(instances: dict, local: Assumptions) -> None:
    shown = [project(service, cpu, instances[name], local)
             for service, cpu in (("go", Span(0.1, 0.08, 0.125)), ("java-virtual", NO_INTERVAL))
             for name in ("m5.large", "c5d.large")]
    table = tables.projection(shown, local)
    assert list(table.columns[2:]) == ["CPU ms/request (measured)", "projected req/s per vCPU",
                                       "projected instances for 10,000 req/s", "projected $/hour for them",
                                       "projected $ per 1M requests"]
    assert table.iloc[0].tolist() == ["go", "m5.large", "0.1 [0.08-0.125]", "10,000 [8,000-12,500]", "1",
                                      "0.096", "0.00133 [0.00107-0.00167]"]
    assert table.iloc[3, -1] == "0.00187"  # no interval, none shown
    section = pages.projection_section(shown, local)
    assert section[0] == "## Projected cost per million requests on m5.large and c5d.large"
    assert section[1].startswith("A projection, not a measurement")
    assert "| headroom" in section[3]


def test_an_aws_efficiency_run_replaces_the_capacity_run_as_the_basis(tmp_path: Path) -> None:
    """The verdict's projection takes the CPU per request of an AWS run where one is shown: at the
    highest rate whose usable repeats held the target; without one, the capacity run's."""
    searched = tmp_path / "20261124T010000Z-native-capacity"
    searched.mkdir()
    (searched / capacity_figures.FILE).write_text(json.dumps({"target": {"p99_ms": 50.0, "max_error_pct": 0.1},
                                                              "services": {}}))
    native = Run(searched, {"run_id": searched.name, "env": "native", "machine": AMD}, pd.DataFrame())
    found = [capacity_figures.Capacity("go", 300, None, False, True, *[stats.Figure(0.2, 0.1, 0.3, "", ())] * 5,
                                       None, None, None, stats.Figure(math.nan, math.nan, math.nan, "", ()))]
    rows = [{"service": "go", "users": rate, "money_ok": True, summaries.VALID: valid, "overall.p99_ms": p99,
             "overall.error_pct": 0.0, "efficiency.service_cpu_ms_per_request": cpu}
            for rate, p99, valid, cpu in ((100, 5, True, 0.11), (200, 9, True, 0.10), (400, 20, False, 0.05),
                                          (300, 80, True, 0.12))]
    aws = Run(ON_AWS.path, ON_AWS.manifest, pd.DataFrame(rows))
    (first, *_), assumptions = capacity_figures.projections(native, found, [aws])
    # 200/s: 400 was invalid, 300 missed the p99 target
    assert first.cpu_ms.value == 0.10 and assumptions.basis.instance_type == "m5.large"
    (first, *_), assumptions = capacity_figures.projections(native, found, [LOCAL])
    assert first.cpu_ms.value == 0.2 and assumptions.basis.run_id == searched.name
