#!/usr/bin/env bash
# Runs a command (./mvnw, java) on bankbench's one JDK (21+), chosen by harness/bankbench/machine/jdk.py:
# JAVA_HOME set to it and its bin/ first on the PATH.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
JAVA_HOME="$(PYTHONPATH="$root/harness" python3 -m bankbench.machine.jdk)"
export JAVA_HOME PATH="$JAVA_HOME/bin:$PATH"
# JDK 24+ warns when Maven's own Guice calls sun.misc.Unsafe (JEP 471): noise in every build's output,
# from the build tool, not from the code built or measured. The option exists from JDK 23 on.
feature="$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$JAVA_HOME/release")"
if [ "${feature:-0}" -ge 23 ]; then
  export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }--sun-misc-unsafe-memory-access=allow"
fi
exec "$@"
