#!/usr/bin/env bash
# `make test`: every suite against a real PostgreSQL that this script starts and stops.
# Prints how many tests each suite ran, and fails if any suite failed or ran none.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
REPORTS=.run/test-reports
rm -rf "$REPORTS" && mkdir -p "$REPORTS"
DB_ENV=.run/test-db.env

cleanup() { "$PY" -m bankbench db down --env-file "$DB_ENV" >/dev/null 2>&1 || true; }
trap cleanup EXIT
cleanup
"$PY" -m bankbench db up --env-file "$DB_ENV" || exit 1
set -a; . "$DB_ENV"; set +a

declare -a NAMES COUNTS RESULTS
record() { # name count exit-code
  NAMES+=("$1"); COUNTS+=("$2")
  if [ "$3" -eq 0 ] && [ "$2" -gt 0 ]; then RESULTS+=("ok"); else RESULTS+=("FAILED"); fi
}
banner() { printf '\n==== %s ====\n' "$1"; }

banner "Go: db + bank-go (go vet, go test -race)"
( cd db && go vet ./... && go test -count=1 -v ./... ) > "$REPORTS/go-db.log" 2>&1; rc_db=$?
( cd bank-go && go vet ./... && go test -race -count=1 -v ./... ) > "$REPORTS/go.log" 2>&1; rc=$?
cat "$REPORTS/go-db.log" "$REPORTS/go.log" | grep -E '^(ok|FAIL|---|panic)|--- FAIL' | grep -v -- '--- PASS' || true
record "go" "$(cat "$REPORTS"/go-db.log "$REPORTS"/go.log | grep -cE -- '--- (PASS|FAIL)')" $((rc + rc_db))

banner "Java: bank-java (./mvnw verify)"
./mvnw -B -f bank-java/pom.xml verify > "$REPORTS/java.log" 2>&1; rc=$?
# Surefire (unit) and Failsafe (integration) each close with an aggregate "Tests run:" line.
totals=$(grep -E 'Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+$' "$REPORTS/java.log")
echo "${totals:-no Tests run: line}"; grep -E 'BUILD (SUCCESS|FAILURE)' "$REPORTS/java.log" || true
java_count=$(echo "$totals" | sed -nE 's/.*Tests run: ([0-9]+),.*/\1/p' | awk '{n += $1} END {print n + 0}')
record "java" "${java_count:-0}" $rc

banner "Contract suite against go, java, java-virtual (pytest)"
"$PY" -m pytest contract -q -p no:cacheprovider --junitxml="$REPORTS/contract.xml"; rc=$?
for svc in go java java_virtual; do
  n=$("$PY" scripts/junit_count.py "$REPORTS/contract.xml" "$svc")
  record "contract $svc" "$n" $rc
done
record "contract both" "$("$PY" scripts/junit_count.py "$REPORTS/contract.xml" "test_equivalence")" $rc

banner "Harness, analysis, report and smoke benchmark (pytest)"
"$PY" -m pytest harness/tests -q -p no:cacheprovider --junitxml="$REPORTS/harness.xml"; rc=$?
record "harness" "$("$PY" scripts/junit_count.py "$REPORTS/harness.xml")" $rc

banner "Infrastructure (terraform fmt/validate/test, moto apply, tflint, checkov)"
bash infra/test.sh 2>&1 | tee "$REPORTS/infra.log"; rc=${PIPESTATUS[0]}
infra_count=$(grep -E '^infra: [0-9]+ passed' "$REPORTS/infra.log" | tail -n 1 | sed -E 's/^infra: ([0-9]+) passed.*/\1/')
record "infra" "${infra_count:-0}" $rc

banner "Summary"
failed=0
printf '%-22s %6s  %s\n' suite tests result
for i in "${!NAMES[@]}"; do
  printf '%-22s %6s  %s\n' "${NAMES[$i]}" "${COUNTS[$i]}" "${RESULTS[$i]}"
  [ "${RESULTS[$i]}" = ok ] || failed=$((failed + 1))
done
echo "reports and logs in $REPORTS/"
echo "suites: $((${#NAMES[@]} - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
