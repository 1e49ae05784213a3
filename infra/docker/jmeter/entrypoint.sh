#!/usr/bin/env bash
# Entrypoint of the bankbench JMeter image (jmeter/Dockerfile): one image, three roles.
#
#   run NAME=VALUE...         runs the plan in this container, each NAME=VALUE a plan property
#                             (host, port, users, duration...: jmeter/README.md); results as
#                             for the controller
#   worker                    a JMeter server, driven by a controller
#   controller NAME=VALUE...  runs the plan on the workers of $JMETER_WORKERS (comma-separated
#                             addresses); each NAME=VALUE is a plan property sent to all of
#                             them (-G). Results go to
#                             $RESULTS_DIR (default /results): jmeter.csv, jmeter.log,
#                             controller.out, started_ms, ended_ms, exit_code.
#   anything else             run as is (e.g. `jmeter --version`)
set -euo pipefail

plan=${JMETER_PLAN:-/opt/bankbench/bank.jmx}
# The settings of every bankbench run (jmeter/bankbench.properties), as the local harness uses.
settings=(-q /opt/bankbench/bankbench.properties)
# Fixed RMI ports, opened among the JMeter tasks by infra/security.tf; no RMI over SSL, which
# would need a keystore, inside the private VPC.
rmi=(-Jserver.rmi.ssl.disable=true -Jserver_port=1099 -Jserver.rmi.localport=50000 -Jclient.rmi.localport=60000)

# The task's own VPC address, which RMI hands to its peers (169.254.x.x is ECS's internal link).
own_address() {
  hostname -I | tr ' ' '\n' | grep -v -e '^169\.254\.' -e '^$' | head -n 1
}

# Waits up to $1 seconds for the service's health endpoint, so a level never starts against a
# service still booting.
wait_for_service() {
  local url=$1 deadline=$((SECONDS + $2))
  until curl -fsS -o /dev/null "$url"; do
    if ((SECONDS >= deadline)); then
      echo "bankbench-jmeter: $url did not answer" >&2
      return 1
    fi
    sleep 1
  done
}

# role (run|controller) NAME=VALUE...: the plan, here or on the workers, against the service
# of the properties host and port.
drive() {
  local role=$1 results=${RESULTS_DIR:-/results} host=127.0.0.1 port=8080 props=() where=() prop
  shift
  for prop in "$@"; do
    case $prop in
      host=*) host=${prop#host=} ;;
      port=*) port=${prop#port=} ;;
    esac
    props+=("$prop")
  done
  if [ "$role" = controller ]; then
    : "${JMETER_WORKERS:?set JMETER_WORKERS to the workers addresses, comma-separated}"
    where=(-R "$JMETER_WORKERS" "${rmi[@]}" -Djava.rmi.server.hostname="$(own_address)")
    props=("${props[@]/#/-G}") # sent to every worker
  else
    props=("${props[@]/#/-J}")
  fi
  mkdir -p "$results"
  wait_for_service "http://$host:$port/health" "${SERVICE_WAIT_S:-180}"
  local rc=0
  if ! jmeter -n -t "$plan" "${settings[@]}" "${where[@]}" "${props[@]}" \
    -l "$results/jmeter.csv" -j "$results/jmeter.log" | tee "$results/controller.out"; then
    rc=${PIPESTATUS[0]}
  fi
  date +%s%3N >"$results/ended_ms"
  echo "$rc" >"$results/exit_code"
  # When the load began, as JMeter tells it (the local harness reads the same moment).
  sed -n 's/^Starting \(distributed\|standalone\) test .*(\([0-9]*\))$/\2/p' "$results/controller.out" | head -n 1 >"$results/started_ms"
  return "$rc"
}

case ${1:-worker} in
  worker)
    # A worker serves one level after another: it must outlive each test.
    exec jmeter -s -n "${settings[@]}" -Jjmeterengine.force.system.exit=false "${rmi[@]}" \
      -Djava.rmi.server.hostname="$(own_address)" -j /dev/stdout
    ;;
  run | controller)
    drive "$@"
    ;;
  *)
    exec "$@"
    ;;
esac
