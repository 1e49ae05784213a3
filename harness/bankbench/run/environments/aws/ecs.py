"""ECS operations of a run: the long-running services up and down, one-off tasks, addresses.

See infra/README.md#what-it-creates."""

import time
from dataclasses import dataclass
from typing import Any, Self

import boto3
from botocore.exceptions import WaiterError

from bankbench.errors import UserError

PLACEMENT_RETRY_S = 300  # a host frees its resources a little after its previous task stopped


@dataclass
class Cluster:
    client: Any
    stack: dict  # the outputs of infra/

    @classmethod
    def of(cls, stack: dict) -> Self:
        return cls(boto3.client("ecs", region_name=stack["region"]), stack)

    @property
    def name(self) -> str:
        return self.stack["cluster_name"]

    def scale_services(self, up: bool) -> None:
        """Starts PostgreSQL and the JMeter workers (waiting until they run), or stops them."""
        for service, count in self.stack["ecs_services"].items():
            self.client.update_service(cluster=self.name, service=service, desiredCount=count if up else 0)
        if up:
            self.client.get_waiter("services_stable").wait(
                cluster=self.name, services=list(self.stack["ecs_services"]),
                WaiterConfig={"Delay": 10, "MaxAttempts": 90})

    def run(self, family: str, role: str, security_group: str, container: str,
            command: list[str] | None = None, environment: dict[str, str] | None = None) -> str:
        override: dict[str, Any] = {"name": container}
        if command:
            override["command"] = command
        if environment:
            override["environment"] = [{"name": k, "value": v} for k, v in environment.items()]
        request = {
            "cluster": self.name,
            "taskDefinition": self.stack["task_definitions"][family],
            "capacityProviderStrategy": [
                {"capacityProvider": self.stack["hosts"][role]["capacity_provider"], "weight": 1}],
            "networkConfiguration": {"awsvpcConfiguration": {
                "subnets": [self.stack["subnet_id"]],
                "securityGroups": [self.stack["security_group_ids"][security_group]],
                "assignPublicIp": "DISABLED"}},
            "overrides": {"containerOverrides": [override]},
            "startedBy": "bankbench",
        }
        deadline = time.monotonic() + PLACEMENT_RETRY_S
        while True:
            answer = self.client.run_task(**request)
            if answer["tasks"]:
                return answer["tasks"][0]["taskArn"]
            if time.monotonic() > deadline:
                raise UserError(f"ECS could not place {family}: {answer['failures']}")
            time.sleep(10)

    def wait_running(self, arn: str, timeout_s: int = 600) -> dict:
        return self._wait("tasks_running", [arn], timeout_s)[0]

    def wait_stopped(self, arns: list[str], timeout_s: int) -> list[dict]:
        return self._wait("tasks_stopped", arns, timeout_s)

    def describe(self, arns: list[str]) -> list[dict]:
        return self.client.describe_tasks(cluster=self.name, tasks=arns)["tasks"]

    def stop(self, arns: list[str]) -> None:
        for arn in arns:
            self.client.stop_task(cluster=self.name, task=arn, reason="bankbench: done")

    def environment(self, family: str) -> dict[str, str]:
        """The environment the task definition of `family` gives its first container."""
        task = self.client.describe_task_definition(taskDefinition=self.stack["task_definitions"][family])
        return {v["name"]: v["value"] for v in task["taskDefinition"]["containerDefinitions"][0].get("environment", [])}

    def service_addresses(self, service: str) -> list[str]:
        arns = self.client.list_tasks(cluster=self.name, serviceName=service, desiredStatus="RUNNING")["taskArns"]
        return sorted(address(task) for task in self.describe(arns)) if arns else []

    def stop_everything(self) -> int:
        self.scale_services(up=False)
        arns = self.client.list_tasks(cluster=self.name, desiredStatus="RUNNING")["taskArns"]
        self.stop(arns)
        return len(arns)

    def _wait(self, waiter: str, arns: list[str], timeout_s: int) -> list[dict]:
        try:
            self.client.get_waiter(waiter).wait(cluster=self.name, tasks=arns, WaiterConfig={
                "Delay": 6, "MaxAttempts": max(1, timeout_s // 6)})
        except WaiterError as err:
            reasons = [task.get("stoppedReason", task["lastStatus"]) for task in self.describe(arns)]
            raise UserError(f"{waiter.replace('_', ' ')}: gave up ({reasons}): {err}") from None
        return self.describe(arns)


def address(task: dict) -> str:
    """A task's private IPv4 address (awsvpc network interface)."""
    details = [d for a in task.get("attachments", []) for d in a.get("details", [])]
    if found := [d["value"] for d in details if d["name"] == "privateIPv4Address"]:
        return found[0]
    raise UserError(f"task {task['taskArn']} has no address yet")


def exit_codes(task: dict) -> dict[str, int | None]:
    return {c["name"]: c.get("exitCode") for c in task["containers"]}
