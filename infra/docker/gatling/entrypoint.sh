#!/usr/bin/env bash
# Entrypoint of the bankbench Gatling image (gatling/Dockerfile).
#
#   run NAME=VALUE...  runs the simulation in this container as the harness runs it natively
#                      (harness/bankbench/load/gatling.py), each NAME=VALUE a property of it
#                      (host, port, scenario, rate, arrivals_s, drain_s, phases...:
#                      gatling/README.md). Results go to $RESULTS_DIR (default /results):
#                      gatling.csv (the samples), gatling.log (its console), started_ms,
#                      ended_ms, exit_code.
#   anything else      run as is (e.g. `java -version`)
#
# GATLING_JVM: the JVM's heap and GC options; the aws environment passes the harness's own.
set -euo pipefail
# await_service, record_run and $results: what the JMeter image's entrypoint does too.
# shellcheck source-path=SCRIPTDIR/.. source=load.sh
source "$(dirname "${BASH_SOURCE[0]}")/../load.sh"

# What Gatling 3.15 needs on the image's JDK 25 (gatling/README.md).
opens=(--add-opens java.base/java.lang=ALL-UNNAMED --enable-native-access=ALL-UNNAMED)

case ${1:-} in
  run)
    shift
    await_service "$@"
    # shellcheck disable=SC2086 # GATLING_JVM is a list of options
    record_run gatling.log java "${opens[@]}" ${GATLING_JVM:-} "${@/#/-D}" -Dsamples="$results/gatling.csv" \
      -cp "/opt/gatling/classes:/opt/gatling/lib/*" io.gatling.app.Gatling -s bankbench.BankSimulation \
      -rf "$results/gatling" -nr
    ;;
  *)
    exec "$@"
    ;;
esac
