"""`push`: build the images (the services', PostgreSQL, JMeter, Gatling) and push them to ECR.

See infra/README.md#run-it-on-aws."""

import base64
import subprocess

import boto3

from bankbench import paths
from bankbench.errors import UserError
from bankbench.run.environments.aws import tf


def push() -> None:
    stack = tf.require_outputs()
    repositories = stack["ecr_repositories"]
    registry = next(iter(repositories.values()))["url"].split("/", 1)[0]
    ecr = boto3.client("ecr", region_name=stack["region"])
    token = ecr.get_authorization_token()["authorizationData"][0]
    user, password = base64.b64decode(token["authorizationToken"]).decode().split(":", 1)
    docker("login", "--username", user, "--password-stdin", registry, stdin=password)
    for image, repo in repositories.items():
        tag = f"{repo['url']}:latest"
        print(f"aws: building {image} from {repo['dockerfile']}", flush=True)
        # The hosts are x86-64 (m5, c5d), whatever machine builds the images.
        docker("build", "--platform", "linux/amd64", "--file", str(paths.ROOT / repo["dockerfile"]),
               "--tag", tag, str(paths.ROOT))
        docker("push", tag)
    print("aws: images pushed; runs record the digest of what they ran.")


def docker(*args: str, stdin: str | None = None) -> None:
    try:
        done = subprocess.run(["docker", *args], input=stdin, text=True)
    except FileNotFoundError:
        raise UserError("`make aws-push` needs Docker to build the images") from None
    if done.returncode != 0:
        raise UserError(f"docker {args[0]} failed")
