from datetime import UTC, datetime

import boto3
from moto import mock_aws

from bankbench.results.files import read_metrics
from bankbench.run.environments.aws import cloudwatch as insights

STACK = {
    "cluster_name": "bankbench",
    "task_definitions": {name: f"arn:aws:ecs:us-east-1:123456789012:task-definition/bankbench-{name}:3"
                         for name in ("go", "postgres", "jmeter-worker", "gatling")},
    "hosts": {"service": {"autoscaling_group": "bankbench-service"}},
}
T0 = 1_795_000_020_000  # a whole minute


def test_family_is_the_task_definition_name_without_revision():
    assert insights.family(STACK["task_definitions"]["go"]) == "bankbench-go"


def test_the_load_generator_is_the_family_that_generated_the_load():
    """JMeter's workers, or the one Gatling task: not the controller, which only drives them."""
    for loadgen in ("jmeter-worker", "gatling"):
        (query,) = [q for q in insights.queries(STACK, "go", loadgen) if q["Id"] == "loadgen_cpu"]
        assert {"Name": "TaskDefinitionFamily", "Value": f"bankbench-{loadgen}"} in query["MetricStat"]["Metric"][
            "Dimensions"]


def test_rows_convert_cpu_units_to_percent_of_one_core():
    series = {"service_cpu": {T0: 1536.0}, "service_mem": {T0: 300.0}, "pg_cpu": {T0: 512.0},
              "pg_mem": {T0: 900.0}, "loadgen_cpu": {T0: 1024.0}, "machine_cpu": {T0: 80.5}}
    [row] = insights.rows(series, loadgen_tasks=3)
    assert row == {"t_ms": T0, "service_cpu_pct": 150.0, "service_rss_mb": 300.0, "pg_cpu_pct": 50.0,
                   "pg_rss_mb": 900.0, "loadgen_cpu_pct": 300.0, "machine_cpu_pct": 80.5}


def test_rows_leave_missing_figures_empty():
    series = {key: {} for key in ("service_cpu", "service_mem", "pg_cpu", "pg_mem", "loadgen_cpu")}
    rows = insights.rows({**series, "machine_cpu": {T0: 10.0}}, loadgen_tasks=1)
    assert rows[0]["service_cpu_pct"] is None and rows[0]["machine_cpu_pct"] == 10.0


@mock_aws
def test_fetch_reads_container_insights_per_task_family():
    cloudwatch = boto3.client("cloudwatch", region_name="us-east-1")
    cloudwatch.put_metric_data(Namespace=insights.INSIGHTS, MetricData=[{
        "MetricName": "CpuUtilized", "Value": 2048.0,
        "Timestamp": datetime.fromtimestamp(T0 / 1000 + 10, tz=UTC),
        "Dimensions": [{"Name": "ClusterName", "Value": "bankbench"},
                       {"Name": "TaskDefinitionFamily", "Value": "bankbench-go"}]}])
    series = insights.fetch(cloudwatch, insights.queries(STACK, "go", "jmeter-worker"), T0 - 60_000, T0 + 120_000)
    assert list(series["service_cpu"].values()) == [2048.0]
    assert series["pg_cpu"] == {}


def test_the_rows_are_written_as_every_environments_metrics_csv(tmp_path):
    series = {"service_cpu": {T0: 1024.0}, "service_mem": {}, "pg_cpu": {T0: 512.0},
              "pg_mem": {T0: 900.0}, "loadgen_cpu": {T0: 1024.0}, "machine_cpu": {T0: 50.0}}
    insights.write(tmp_path / "metrics.csv", insights.rows(series, loadgen_tasks=2))
    frame = read_metrics(tmp_path)
    assert frame["service_cpu_pct"].tolist() == [100.0] and frame["loadgen_cpu_pct"].tolist() == [200.0]
    assert frame["service_rss_mb"].isna().all()
