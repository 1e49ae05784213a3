"""A level's metrics.csv on AWS, from CloudWatch.

A row per period: Container Insights gives each task family's CPU (1024 units = one vCPU) and memory
(MiB), EC2 the service host's CPU (0-100).

See docs/aws.md#how-results-come-back and results/LAYOUT.md#metricscsv."""

import csv
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bankbench.measure.resources import COLUMNS
from bankbench.run.environments.aws.workload import METRICS_PERIOD_S

INSIGHTS = "ECS/ContainerInsights"
ARRIVAL_WAIT_S = 420  # Container Insights publishes a minute's figures a few minutes later


def family(task_definition_arn: str) -> str:
    """arn:aws:ecs:...:task-definition/bankbench-go:3 -> bankbench-go"""
    return task_definition_arn.rsplit("/", 1)[1].rsplit(":", 1)[0]


def queries(stack: dict, service: str, loadgen: str) -> list[dict[str, Any]]:
    """GetMetricData queries for a level of `service` loaded by the tasks of family `loadgen`."""
    families = {name: family(stack["task_definitions"][name]) for name in (service, "postgres", loadgen)}

    def stat(query_id: str, namespace: str, metric: str, dimensions: dict[str, str]) -> dict[str, Any]:
        return {"Id": query_id, "MetricStat": {
            "Metric": {"Namespace": namespace, "MetricName": metric,
                       "Dimensions": [{"Name": k, "Value": v} for k, v in dimensions.items()]},
            "Period": METRICS_PERIOD_S, "Stat": "Average"}}

    def task(query_id: str, name: str, metric: str) -> dict[str, Any]:
        return stat(query_id, INSIGHTS, metric,
                    {"ClusterName": stack["cluster_name"], "TaskDefinitionFamily": families[name]})

    return [task("service_cpu", service, "CpuUtilized"),
            task("service_mem", service, "MemoryUtilized"),
            task("pg_cpu", "postgres", "CpuUtilized"), task("pg_mem", "postgres", "MemoryUtilized"),
            task("loadgen_cpu", loadgen, "CpuUtilized"),
            stat("machine_cpu", "AWS/EC2", "CPUUtilization",
                 {"AutoScalingGroupName": stack["hosts"]["service"]["autoscaling_group"]})]


def fetch(cloudwatch: Any, metric_queries: list[dict], start_ms: int, end_ms: int) -> dict[str, dict[int, float]]:
    """Query id -> {period start in epoch ms: value}."""
    series: dict[str, dict[int, float]] = {q["Id"]: {} for q in metric_queries}
    start, end = (datetime.fromtimestamp(ms / 1000, tz=UTC) for ms in (start_ms, end_ms))
    request = {"MetricDataQueries": metric_queries, "StartTime": start, "EndTime": end}
    for page in cloudwatch.get_paginator("get_metric_data").paginate(**request):
        for result in page["MetricDataResults"]:
            for stamp, value in zip(result["Timestamps"], result["Values"], strict=True):
                series[result["Id"]][int(stamp.timestamp() * 1000)] = value
    return series


def fetch_when_complete(cloudwatch: Any, metric_queries: list[dict], start_ms: int,
                        end_ms: int) -> dict[str, dict[int, float]]:
    """fetch(), waiting (bounded) until the service's last full period has arrived."""
    last_full_period = end_ms - 2 * METRICS_PERIOD_S * 1000
    deadline = time.monotonic() + ARRIVAL_WAIT_S
    while True:
        series = fetch(cloudwatch, metric_queries, start_ms, end_ms)
        if max(series["service_cpu"], default=0) >= last_full_period or time.monotonic() > deadline:
            return series
        time.sleep(30)


def rows(series: dict[str, dict[int, float]], loadgen_tasks: int) -> list[dict[str, float | int | None]]:
    """metrics.csv rows, CPU in % of one core (the load generator's: its tasks' mean x count)."""
    def cpu_pct(units: float | None, tasks: int = 1) -> float | None:
        return None if units is None else round(units * tasks / 1024 * 100, 1)

    return [{
        "t_ms": t,
        "service_cpu_pct": cpu_pct(series["service_cpu"].get(t)),
        "service_rss_mb": series["service_mem"].get(t),
        "pg_cpu_pct": cpu_pct(series["pg_cpu"].get(t)),
        "pg_rss_mb": series["pg_mem"].get(t),
        "loadgen_cpu_pct": cpu_pct(series["loadgen_cpu"].get(t), loadgen_tasks),
        "machine_cpu_pct": series["machine_cpu"].get(t),
    } for t in sorted(set().union(*series.values()))]


def write(path: Path, table: list[dict[str, float | int | None]]) -> None:
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(table)
