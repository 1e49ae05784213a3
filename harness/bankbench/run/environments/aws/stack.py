"""`up`, `cost` and `down`: create the stack (cost first), tear it down whatever runs on it.

See infra/README.md#run-it-on-aws."""

import secrets
from datetime import UTC, datetime, timedelta

import boto3

from bankbench.errors import UserError
from bankbench.run.environments.aws import ecs, tf

PLAN_FILE = tf.INFRA / ".aws-up.tfplan"


def cost(hours: float) -> dict:
    tf.init()
    shutdown_at = datetime.now(UTC) + timedelta(hours=hours)
    # The deployed stack's password, or a new one: the data directory keeps the first one.
    if stack := tf.outputs():
        ssm = boto3.client("ssm", region_name=stack["region"])
        parameter = ssm.get_parameter(Name=stack["db_password_parameter"], WithDecryption=True)
        password = parameter["Parameter"]["Value"]
    else:
        password = secrets.token_urlsafe(24)
    tf.run("plan", "-input=false", f"-out={PLAN_FILE}", capture=True,
           db_password=password, shutdown_at=shutdown_at.strftime("%Y-%m-%dT%H:%M:%SZ"))
    planned = tf.planned_outputs(PLAN_FILE)
    per_hour = planned["cost_per_hour_usd"]
    print(f"aws: the stack costs about ${per_hour:.2f} per hour while it is up (on-demand "
          f"us-east-1 prices of infra/instances.csv), ${per_hour * 24:.2f} per day.")
    print(f"aws: its hosts scale to zero by themselves at {shutdown_at:%Y-%m-%d %H:%M} UTC "
          f"({hours:g} h from now; AWS_HOURS= changes it); `make aws-down` removes everything.")
    return planned


def up(hours: float, assume_yes: bool) -> None:
    cost(hours)
    if not assume_yes and input("aws: create it? [y/N] ").strip().lower() not in ("y", "yes"):
        PLAN_FILE.unlink(missing_ok=True)
        raise UserError("cancelled, nothing created")
    try:
        tf.run("apply", "-input=false", str(PLAN_FILE))
    finally:
        PLAN_FILE.unlink(missing_ok=True)
    print("aws: stack up. Next: `make aws-push`, then `make aws-bench SERVICE=go PROFILE=...`.")


def down() -> None:
    """Stops every task, then destroys the stack; bounded in time."""
    tf.init()
    if stack := tf.outputs():
        stopped = ecs.Cluster.of(stack).stop_everything()
        print(f"aws: stopped {stopped} task(s); destroying the stack (a few minutes)")
    tf.run("destroy", "-input=false", "-auto-approve", timeout=30 * 60,
           db_password=tf.PLACEHOLDER_PASSWORD)
    print("aws: everything is gone (check the Stack=bankbench tag in the console if in doubt).")
