#!/usr/bin/env bash
# Runs a command (./mvnw, java) on bankbench's one JDK (21+), chosen by harness/bankbench/tools/jdk.py:
# JAVA_HOME set to it and its bin/ first on the PATH.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
JAVA_HOME="$(PYTHONPATH="$root/harness" python3 -m bankbench.tools.jdk)"
export JAVA_HOME PATH="$JAVA_HOME/bin:$PATH"
exec "$@"
