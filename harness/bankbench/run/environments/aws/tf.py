"""Terraform, run on the root module in infra/ with the CLI configuration the stack needs.

See infra/README.md."""

import json
import os
import subprocess
from pathlib import Path

from bankbench.errors import UserError
from bankbench.paths import INFRA

# The provider mirror of offline machines (see infra/terraformrc); elsewhere, the registry.
MIRROR = Path("/opt/tf-plugins/registry.terraform.io/hashicorp/aws")
# Terraform reads variables without a value from TF_VAR_*; destroy needs one that passes validation.
PLACEHOLDER_PASSWORD = "placeholder-password-for-destroy"


def env(**variables: str) -> dict[str, str]:
    mirror = {"TF_CLI_CONFIG_FILE": str(INFRA / "terraformrc")} if MIRROR.is_dir() else {}
    return {**os.environ, "TF_IN_AUTOMATION": "1", **mirror,
            **{f"TF_VAR_{name}": value for name, value in variables.items()}}


def run(*args: str, capture: bool = False, timeout: float | None = None, **variables: str) -> str:
    try:
        done = subprocess.run(["terraform", *args], cwd=INFRA, env=env(**variables), text=True,
                              capture_output=capture, timeout=timeout)
    except FileNotFoundError:
        raise UserError("terraform is not installed (https://developer.hashicorp.com/terraform/install)") from None
    except subprocess.TimeoutExpired:
        raise UserError(f"terraform {args[0]} did not finish within {timeout:.0f} s") from None
    if done.returncode != 0:
        detail = f": {done.stderr.strip()}" if capture else ""
        raise UserError(f"terraform {args[0]} failed{detail}")
    return done.stdout if capture else ""


def init() -> None:
    run("init", "-input=false", "-lockfile=readonly", capture=True)


def outputs() -> dict:
    """The stack's outputs (outputs.tf), empty when nothing is deployed."""
    raw = json.loads(run("output", "-json", capture=True) or "{}")
    return {name: output["value"] for name, output in raw.items()}


def require_outputs() -> dict:
    if not (stack := outputs()):
        raise UserError("no stack deployed: run `make aws-up` first")
    return stack


def planned_outputs(plan_file: Path) -> dict:
    """The outputs a saved plan will produce (those known before apply)."""
    shown = json.loads(run("show", "-json", str(plan_file), capture=True))
    return {name: out.get("value") for name, out in shown["planned_values"].get("outputs", {}).items()}
