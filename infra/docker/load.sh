# What the entrypoints of the load generators' images share (jmeter/entrypoint.sh,
# gatling/entrypoint.sh), sourced by both: a level's run against the service of its properties
# host and port, its console and its moments in $results (RESULTS_DIR, default /results), which
# the uploader of the AWS task copies to S3 (harness/bankbench/run/environments/aws/results.py).
# shellcheck shell=bash

results=${RESULTS_DIR:-/results}

# await_service NAME=VALUE...: waits up to SERVICE_WAIT_S (180) seconds for the health endpoint of
# the service of the properties host and port, so a level never starts against a service still
# booting.
await_service() {
  local host=127.0.0.1 port=8080 prop deadline=$((SECONDS + ${SERVICE_WAIT_S:-180}))
  for prop in "$@"; do
    case $prop in
      host=*) host=${prop#host=} ;;
      port=*) port=${prop#port=} ;;
    esac
  done
  until curl -fsS -o /dev/null "http://$host:$port/health"; do
    if ((SECONDS >= deadline)); then
      echo "bankbench: http://$host:$port/health did not answer" >&2
      return 1
    fi
    sleep 1
  done
}

# record_run CONSOLE COMMAND...: runs the load generator, its console copied into
# $results/CONSOLE, then writes ended_ms, exit_code and started_ms: when the load began, from the
# generator's "Starting ... test ... (EPOCH_MS)" line, as the local harness reads it (Gatling's
# simulation prints JMeter's form). Returns the generator's exit status.
record_run() {
  local console=$results/$1 rc=0
  shift
  mkdir -p "$results"
  if ! "$@" | tee "$console"; then
    rc=${PIPESTATUS[0]}
  fi
  date +%s%3N >"$results/ended_ms"
  echo "$rc" >"$results/exit_code"
  sed -n 's/^Starting \(distributed\|standalone\) test .*(\([0-9]*\))$/\2/p' "$console" | head -n 1 >"$results/started_ms"
  return "$rc"
}
