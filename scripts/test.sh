#!/usr/bin/env bash
# `make test`: every suite against a real PostgreSQL that this script starts and stops.
# Prints how many tests each suite ran, and fails if any suite failed or ran none.
# (`make check`, scripts/check.sh, is the fast tier: a part of these.)
set -uo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
REPORTS=.run/test-reports
rm -rf "$REPORTS" && mkdir -p "$REPORTS"
DB_ENV=.run/test-db.env
. scripts/suites.sh

cleanup() { "$PY" -m bankbench db down --env-file "$DB_ENV" >/dev/null 2>&1 || true; }
trap cleanup EXIT
cleanup
"$PY" -m bankbench db up --env-file "$DB_ENV" || exit 1
set -a; . "$DB_ENV"; set +a

# The services under test, as services.yaml lists them.
read -r -a SERVICES <<<"$("$PY" -m bankbench services)"

db_path() { # log who: which PostgreSQL a suite's tests used, as its helper (dbtest, TestDatabase) said
  if grep -q "$2: PostgreSQL in a container" "$1"; then echo "Testcontainers"
  elif grep -q "$2: PostgreSQL of POSTGRES_HOST" "$1"; then echo "POSTGRES_HOST"
  else echo "no database"; fi
}

lint_suites

# Where a Docker engine answers, the Go and Java integration tests start their PostgreSQL from
# bankbench's image through Testcontainers, and the Docker suite (compose) runs at the end.
# Elsewhere they use the database above, and the summary says that Docker was skipped.
DOCKER=none # none: no engine answers; ready: the images are built; failed: they did not build
SUITE_DB=(env)
if docker info >/dev/null 2>&1; then
  banner "Docker: the images of docker-compose.yml (make images)"
  DOCKER=failed
  if make -s images > "$REPORTS/images.log" 2>&1; then
    echo "images built (log: $REPORTS/images.log)"
    DOCKER=ready SUITE_DB=(env -u POSTGRES_HOST)
    # Testcontainers without Ryuk, whose image is on Docker Hub (each suite removes its own
    # container); a local engine publishes ports on this host, even from inside a container.
    export TESTCONTAINERS_RYUK_DISABLED=true
    [ -n "${DOCKER_HOST:-}" ] || export TESTCONTAINERS_HOST_OVERRIDE=${TESTCONTAINERS_HOST_OVERRIDE:-localhost}
  else
    tail -n 20 "$REPORTS/images.log"
    echo "without Docker Hub, build local base images first: make offline-images (as root)"
  fi
  record "docker images" "$(docker image ls --format '{{.Repository}}' | grep -c '^bankbench/')" \
    "$([ "$DOCKER" = ready ] && echo 0 || echo 1)"
fi

banner "Go: db + jmeter/calibrate + bank-go (go test -race)"
go_tests; rc=$?
record "go (db: $(db_path "$REPORTS/go.log" dbtest))" "$(go_count)" $rc

for module in bank-java bank-helidon; do
  banner "Java: $module (./mvnw verify)"
  java_tests "$module" verify; rc=$?
  record "$module (db: $(db_path "$REPORTS/$module.log" TestDatabase))" "$(java_count "$module")" $rc
done

# Suites that need no service run in the background beside the contract suite and schemathesis,
# which wait on their services' timeouts more than they use the CPUs (about 200 s off the total);
# their rows come after schemathesis's, each with its own time.
beside() { # log command...: its pid in BESIDE_PID
  local log=$1; shift
  (start=$SECONDS; "$@" > "$REPORTS/$log.log" 2>&1; rc=$?
   echo $((SECONDS - start)) > "$REPORTS/$log.seconds"; exit $rc) &
  BESIDE_PID=$!
}
joined() { # log pid: waits for it, prints its log, times its row from its own start; its status
  wait "$2"; local rc=$?
  cat "$REPORTS/$1.log"
  SUITE_START=$((SECONDS - $(cat "$REPORTS/$1.seconds")))
  return $rc
}

# The harness's tests that judge no time: its unit tests (not marked integration) and the
# integration tests marked untimed (the report rebuilt, the generators against a stub, the money
# check, ...). Niced, as infra is, so that the contract suite's timeouts keep the CPUs they need.
beside harness-untimed nice -n 19 "$PY" -m pytest harness/tests -q -m "not integration or untimed" \
  --ignore=harness/tests/docker -p no:cacheprovider --durations=15 --junitxml="$REPORTS/harness-untimed.xml"
UNTIMED=$BESIDE_PID
# Terraform serves only `make aws-*`: a newcomer without it still gets every other suite. CI has it.
INFRA=""
if command -v terraform >/dev/null || [ "${CI:-}" = true ]; then
  beside infra nice -n 19 bash infra/test.sh
  INFRA=$BESIDE_PID
fi

banner "Contract suite against ${SERVICES[*]} (pytest)"
"$PY" -m pytest contract -q -p no:cacheprovider --durations=15 --junitxml="$REPORTS/contract.xml"; rc=$?
for svc in "${SERVICES[@]}"; do
  n=$("$PY" scripts/junit_count.py "$REPORTS/contract.xml" "${svc//-/_}")
  record "contract $svc" "$n" $rc
done
record "contract equivalence" "$("$PY" scripts/junit_count.py "$REPORTS/contract.xml" "test_equivalence")" $rc

banner "Property-based API tests against ${SERVICES[*]} (schemathesis)"
# Seed 14 unless SCHEMATHESIS_SEED says otherwise ("random" for a new one): CI replays the same cases.
"$PY" -m bankbench fuzz 2>&1 | tee "$REPORTS/fuzz.log"
for svc in "${SERVICES[@]}"; do # the count is of generated requests
  line=$(grep -E "^fuzz $svc: " "$REPORTS/fuzz.log")
  n=$(echo "$line" | sed -nE 's/^fuzz [a-z-]+: ([0-9]+) generated.*/\1/p')
  record "schemathesis $svc" "${n:-0}" "$(echo "$line" | grep -q ', 0 failures, ok' && echo 0 || echo 1)"
done

banner "Infrastructure (terraform fmt/validate/test, moto apply, tflint, checkov; ran beside the contract suite)"
if [ -n "$INFRA" ]; then
  joined infra "$INFRA"; rc=$?
  infra_count=$(grep -E '^infra: [0-9]+ passed' "$REPORTS/infra.log" | tail -n 1 | sed -E 's/^infra: ([0-9]+) passed.*/\1/')
  record "infra" "${infra_count:-0}" $rc
else
  skip "infra" "terraform not installed (needed only for \`make aws-*\`)"
fi

banner "Harness unit and untimed tests: analysis, statistics, report (pytest; ran beside the contract suite)"
joined harness-untimed "$UNTIMED"; rc=$?
record "harness unit, untimed" "$("$PY" scripts/junit_count.py "$REPORTS/harness-untimed.xml")" $rc

banner "Harness integration: real runs of services and load generators, timed, alone (pytest)"
pytest_suite "harness timed" harness harness/tests -q -m "integration and not untimed" --ignore=harness/tests/docker

banner "Docker: compose smoke benchmark, health checks, JMeter and Gatling in compose (pytest)"
if [ "$DOCKER" = ready ]; then
  pytest_suite "docker (compose)" docker harness/tests/docker -v -s
elif [ "$DOCKER" = failed ]; then
  record "docker (compose)" 0 1 # the images did not build: see above
else
  skip "docker (compose)" "no Docker engine answers (\`docker info\`); Go and Java used POSTGRES_HOST"
fi

banner "Newcomer: make doctor and make bench PROFILE=smoke in a fresh minimal Debian 13 root"
# Needs root and debootstrap (CI installs it with the Docker engine); a user's make test without
# them skips it loudly. `make newcomer` runs it alone.
if [ "$(id -u)" -eq 0 ] && command -v debootstrap >/dev/null; then
  bash scripts/newcomer.sh 2>&1 | tee "$REPORTS/newcomer.log"; rc=${PIPESTATUS[0]}
  steps=$(sed -nE 's/^newcomer: ([0-9]+) passed, 0 failed$/\1/p' "$REPORTS/newcomer.log")
  record "newcomer (Debian 13 root)" "${steps:-0}" $rc
elif [ "${CI:-}" = true ]; then
  record "newcomer (Debian 13 root)" 0 1 # CI has root and installs debootstrap: this is a fault
else
  skip "newcomer (Debian 13 root)" "needs root and debootstrap (apt-get install debootstrap)"
fi


summary
