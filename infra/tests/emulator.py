"""Applies the stack to moto (a local AWS emulator on 127.0.0.1), checks what it created, stops
every task the way `make aws-down` does, destroys the stack and checks that nothing is left.

Run by infra/test.sh with the repository's .venv; exits 1 when a check fails. moto answers a second
plan with changes, so this is no idempotency test; the mocked `terraform test` covers the rest.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import boto3
import yaml

from bankbench import paths
from bankbench.run.environments.aws import ecs, tf

VARIABLES = {"db_password": "emulator-password-0123", "jmeter_workers": "2", "shutdown_at": "2099-01-01T00:00:00Z"}
EXPECTED_HOSTS = {"postgres": ("c5d.xlarge", 1), "service": ("m5.large", 1), "jmeter": ("m5.xlarge", 3)}
# The services under test, as services.tf reads them.
REGISTRY = tf.INFRA.parent / "services.yaml"
SERVICES = yaml.safe_load(REGISTRY.read_text())
TIMEOUT_S = 300
failures: list[str] = []


def check(name: str, ok: bool) -> None:
    print(f"emulator: {'ok  ' if ok else 'FAIL'} {name}", flush=True)
    if not ok:
        failures.append(name)


def terraform(workdir: Path, *args: str) -> str:
    env = tf.env(**VARIABLES)
    done = subprocess.run(["terraform", *args], cwd=workdir, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
    if done.returncode != 0:
        raise RuntimeError(f"terraform {args[0]}: {done.stderr[-3000:]}")
    return done.stdout


def start_moto() -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([str(Path(sys.executable).parent / "moto_server"), "-H", "127.0.0.1", "-p", str(port)],
                              env={**os.environ, "MOTO_IAM_LOAD_MANAGED_POLICIES": "true"},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return server, f"http://127.0.0.1:{port}"
        time.sleep(0.2)
    server.kill()
    raise RuntimeError("moto_server did not start")


def check_created(stack: dict) -> None:
    aws = {name: boto3.client(name) for name in
           ("ecs", "autoscaling", "ec2", "s3", "ssm", "servicediscovery", "ecr", "logs")}
    [cluster] = aws["ecs"].describe_clusters(clusters=[stack["cluster_name"]], include=["SETTINGS"])["clusters"]
    check("cluster with Container Insights", {"name": "containerInsights", "value": "enabled"} in cluster["settings"])
    check("three capacity providers", len(cluster["capacityProviders"]) == 3)
    for role, (instance_type, count) in EXPECTED_HOSTS.items():
        [group] = aws["autoscaling"].describe_auto_scaling_groups(
            AutoScalingGroupNames=[stack["hosts"][role]["autoscaling_group"]])["AutoScalingGroups"]
        ids = [i["InstanceId"] for i in group["Instances"]]
        reservations = aws["ec2"].describe_instances(InstanceIds=ids)["Reservations"]
        types = {i["InstanceType"] for r in reservations for i in r["Instances"]}
        check(f"{role}: {count} x {instance_type}", len(ids) == count and types == {instance_type})
    instance = aws["ec2"].describe_instances(InstanceIds=ids)["Reservations"][0]["Instances"][0]
    check("instances tagged", {"Key": "Project", "Value": "bankbench"} in instance.get("Tags", []))
    template = aws["ec2"].describe_launch_template_versions(
        LaunchTemplateName="bankbench-postgres")["LaunchTemplateVersions"][0]
    user_data = base64.b64decode(template["LaunchTemplateData"]["UserData"]).decode()
    check("PostgreSQL host mounts its NVMe disk", "mount /mnt/nvme" in user_data)
    check_tasks(aws["ecs"], stack)
    security_groups = stack["security_group_ids"]
    rules = aws["ec2"].describe_security_group_rules(
        Filters=[{"Name": "group-id", "Values": [security_groups["postgres"]]}])
    sources = {r["ReferencedGroupInfo"]["GroupId"] for r in rules["SecurityGroupRules"]
               if not r["IsEgress"]}
    check("PostgreSQL reachable from service and admin only",
          sources == {security_groups["service"], security_groups["admin"]})
    namespaces = [n["Name"] for n in aws["servicediscovery"].list_namespaces()["Namespaces"]]
    check("Cloud Map namespace", "bankbench.internal" in namespaces)
    block = aws["s3"].get_public_access_block(Bucket=stack["results_bucket"])["PublicAccessBlockConfiguration"]
    check("results bucket private", all(block.values()))
    repositories = {r["repositoryName"] for r in aws["ecr"].describe_repositories()["repositories"]}
    images = {s["image"] for s in SERVICES.values()} | {"postgres", "jmeter", "gatling"}
    check("an ECR repository per image", repositories == {f"bankbench/{image}" for image in images})
    check("service images built from their Dockerfiles",
          all(stack["ecr_repositories"][s["image"]]["dockerfile"] == s["dockerfile"] for s in SERVICES.values()))
    parameter = aws["ssm"].get_parameter(Name=stack["db_password_parameter"])["Parameter"]
    check("password is a SecureString", parameter["Type"] == "SecureString")
    groups = aws["logs"].describe_log_groups(logGroupNamePrefix="/ecs/bankbench/")["logGroups"]
    check("a log group per role", len(groups) == 3)


def check_tasks(client, stack: dict) -> None:
    families = set(client.list_task_definition_families(status="ACTIVE")["families"])
    expected = {"postgres", "admin", *SERVICES, "jmeter-worker", "jmeter-controller", "gatling"}
    check("a task family per service and per other task", {f"bankbench-{f}" for f in expected} <= families)
    # Real repository URLs here (the mocked `terraform test` has one for all): each load
    # generator's tasks run its own image.
    images = {family: client.describe_task_definition(taskDefinition=f"bankbench-{family}")["taskDefinition"][
        "containerDefinitions"][0]["image"] for family in ("jmeter-worker", "jmeter-controller", "gatling")}
    check("each load generator's tasks run its image", images == {
        "jmeter-worker": f"{stack['ecr_repositories']['jmeter']['url']}:latest",
        "jmeter-controller": f"{stack['ecr_repositories']['jmeter']['url']}:latest",
        "gatling": f"{stack['ecr_repositories']['gatling']['url']}:latest"})
    postgres = client.describe_task_definition(taskDefinition="bankbench-postgres")["taskDefinition"]
    check("PostgreSQL data on the host's NVMe", postgres["volumes"][0]["host"]["sourcePath"] == "/mnt/nvme/pgdata")
    services = client.describe_services(cluster=stack["cluster_name"], services=list(stack["ecs_services"]))["services"]
    check("services idle until a run", [s["desiredCount"] for s in services] == [0, 0])


def check_gone() -> None:
    groups = boto3.client("autoscaling").describe_auto_scaling_groups()["AutoScalingGroups"]
    check("no auto-scaling group left", groups == [])
    reservations = boto3.client("ec2").describe_instances(
        Filters=[{"Name": "instance-state-name", "Values": ["pending", "running"]}])
    check("no instance left running", reservations["Reservations"] == [])
    clusters = boto3.client("ecs").describe_clusters(clusters=["bankbench"])["clusters"]
    check("cluster gone", all(c["status"] == "INACTIVE" for c in clusters))
    check("bucket gone", boto3.client("s3").list_buckets()["Buckets"] == [])
    vpcs = boto3.client("ec2").describe_vpcs(Filters=[{"Name": "tag:Project", "Values": ["bankbench"]}])["Vpcs"]
    check("VPC gone", vpcs == [])


def main() -> int:
    server, endpoint = start_moto()
    os.environ.update(AWS_ENDPOINT_URL=endpoint, AWS_ACCESS_KEY_ID="test", AWS_SECRET_ACCESS_KEY="test",
                      AWS_DEFAULT_REGION="us-east-1", AWS_REGION="us-east-1", AWS_EC2_METADATA_DISABLED="true")
    # A copy of infra/ one level below a copy of the registry, as services.tf reads ../services.yaml.
    root = Path(tempfile.mkdtemp(prefix="bankbench-emulator-"))
    workdir = root / tf.INFRA.name
    try:
        workdir.mkdir()
        shutil.copy(REGISTRY, root / REGISTRY.name)
        for item in [*tf.INFRA.glob("*.tf"), tf.INFRA / ".terraform.lock.hcl", tf.INFRA / "templates",
                     paths.INSTANCES]:
            (shutil.copytree if item.is_dir() else shutil.copy)(item, workdir / item.name)
        terraform(workdir, "init", "-input=false", "-lockfile=readonly")
        try:
            terraform(workdir, "apply", "-input=false", "-auto-approve")
            stack = {k: v["value"] for k, v in json.loads(terraform(workdir, "output", "-json")).items()}
            check_created(stack)
            boto3.client("ecs").update_service(cluster="bankbench", service="postgres", desiredCount=1)
            ecs.Cluster.of(stack).stop_everything()
            services = boto3.client("ecs").describe_services(cluster="bankbench", services=["postgres"])["services"]
            check("aws-down scales the services to zero", services[0]["desiredCount"] == 0)
        finally:
            terraform(workdir, "destroy", "-input=false", "-auto-approve")
        check_gone()
    except (RuntimeError, subprocess.TimeoutExpired) as err:
        check(f"terraform against the emulator: {err}", False)
    finally:
        server.kill()
        shutil.rmtree(root, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
