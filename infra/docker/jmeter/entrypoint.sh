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
# await_service, record_run and $results: what the Gatling image's entrypoint does too.
# shellcheck source-path=SCRIPTDIR/.. source=load.sh
source "$(dirname "${BASH_SOURCE[0]}")/../load.sh"

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

# role (run|controller) NAME=VALUE...: the plan, here or on the workers, against the service
# of the properties host and port.
drive() {
  local role=$1 props where=()
  shift
  if [ "$role" = controller ]; then
    : "${JMETER_WORKERS:?set JMETER_WORKERS to the workers addresses, comma-separated}"
    where=(-R "$JMETER_WORKERS" "${rmi[@]}" -Djava.rmi.server.hostname="$(own_address)")
    props=("${@/#/-G}") # sent to every worker
  else
    props=("${@/#/-J}")
  fi
  await_service "$@"
  record_run controller.out jmeter -n -t "$plan" "${settings[@]}" "${where[@]}" "${props[@]}" \
    -l "$results/jmeter.csv" -j "$results/jmeter.log"
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
